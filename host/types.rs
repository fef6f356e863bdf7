//! nvCOMP's enumerations, with their wire values.
#![forbid(unsafe_code)]

/// `nvcompType_t`: the element type an algorithm is told the data has (a `u32` in spec headers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum DataType {
    /// `NVCOMP_TYPE_CHAR` (signed 8-bit; LZ4's and ANS's default).
    #[default]
    Char = 0,
    /// `NVCOMP_TYPE_UCHAR`.
    Uchar = 1,
    /// `NVCOMP_TYPE_SHORT`.
    Short = 2,
    /// `NVCOMP_TYPE_USHORT`.
    Ushort = 3,
    /// `NVCOMP_TYPE_INT`.
    Int = 4,
    /// `NVCOMP_TYPE_UINT`.
    Uint = 5,
    /// `NVCOMP_TYPE_LONGLONG`.
    LongLong = 6,
    /// `NVCOMP_TYPE_ULONGLONG`.
    ULongLong = 7,
    /// `NVCOMP_TYPE_FLOAT8_E4M3`.
    Float8E4M3 = 9,
    /// `NVCOMP_TYPE_FLOAT16`.
    Float16 = 10,
    /// `NVCOMP_TYPE_FLOAT32`.
    Float32 = 11,
    /// `NVCOMP_TYPE_FLOAT64`.
    Float64 = 12,
    /// `NVCOMP_TYPE_BITS`: "read it from the stream" in decompression options.
    Bits = 0xff,
}

impl DataType {
    /// Every value, in wire order.
    pub const ALL: [DataType; 13] = [
        DataType::Char,
        DataType::Uchar,
        DataType::Short,
        DataType::Ushort,
        DataType::Int,
        DataType::Uint,
        DataType::LongLong,
        DataType::ULongLong,
        DataType::Float8E4M3,
        DataType::Float16,
        DataType::Float32,
        DataType::Float64,
        DataType::Bits,
    ];

    /// The type with this wire value, if any.
    pub fn from_raw(v: u32) -> Option<DataType> {
        Self::ALL.into_iter().find(|t| *t as u32 == v)
    }

    /// Bytes per element (1 for `Bits`).
    pub fn size(self) -> usize {
        match self {
            DataType::Char | DataType::Uchar | DataType::Float8E4M3 | DataType::Bits => 1,
            DataType::Short | DataType::Ushort | DataType::Float16 => 2,
            DataType::Int | DataType::Uint | DataType::Float32 => 4,
            DataType::LongLong | DataType::ULongLong | DataType::Float64 => 8,
        }
    }

    /// The name used on the command line and in reports (`char`, `uint`, `float16`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DataType::Char => "char",
            DataType::Uchar => "uchar",
            DataType::Short => "short",
            DataType::Ushort => "ushort",
            DataType::Int => "int",
            DataType::Uint => "uint",
            DataType::LongLong => "longlong",
            DataType::ULongLong => "ulonglong",
            DataType::Float8E4M3 => "float8",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
            DataType::Bits => "bits",
        }
    }

    /// The type with this [`name`](Self::name).
    pub fn from_name(name: &str) -> Option<DataType> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// `nvcompFormatType_t`: the algorithm byte of an NVCOMP_NATIVE header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// LZ4 (0).
    Lz4,
    /// Snappy (1): recognised in headers, not implemented.
    Snappy,
    /// ANS (2).
    Ans,
    /// GDeflate (3): recognised in headers, not implemented.
    GDeflate,
    /// Cascaded (4).
    Cascaded,
    /// Bitcomp (5).
    Bitcomp,
    /// Zstd (6): recognised in headers, not implemented.
    Zstd,
    /// Deflate (7): recognised in headers, not implemented.
    Deflate,
    /// Gzip (8): recognised in headers, not implemented.
    Gzip,
    /// A payload of gpucomp's own design: the nvCOMP id of the format it derives from, plus
    /// 0x80. nvCOMP refuses such streams cleanly instead of misreading them.
    Private(u8),
}

impl Format {
    /// The header byte.
    pub fn to_raw(self) -> u8 {
        match self {
            Format::Lz4 => 0,
            Format::Snappy => 1,
            Format::Ans => 2,
            Format::GDeflate => 3,
            Format::Cascaded => 4,
            Format::Bitcomp => 5,
            Format::Zstd => 6,
            Format::Deflate => 7,
            Format::Gzip => 8,
            Format::Private(id) => id,
        }
    }

    /// The format for a header byte, if it is one nvCOMP (or gpucomp, at 0x80 + id) defines.
    pub fn from_raw(v: u8) -> Option<Format> {
        Some(match v {
            0 => Format::Lz4,
            1 => Format::Snappy,
            2 => Format::Ans,
            3 => Format::GDeflate,
            4 => Format::Cascaded,
            5 => Format::Bitcomp,
            6 => Format::Zstd,
            7 => Format::Deflate,
            8 => Format::Gzip,
            0x80..=0x88 => Format::Private(v),
            _ => return None,
        })
    }

    /// Size of this format's spec header in an NVCOMP_NATIVE stream (`formatSpec.hpp`).
    pub fn spec_header_size(self) -> usize {
        match self {
            Format::Lz4 => 12,
            Format::Snappy | Format::Zstd => 4,
            Format::Ans => 16,
            Format::GDeflate | Format::Deflate | Format::Gzip => 8,
            Format::Cascaded => 40,
            Format::Bitcomp => 24,
            Format::Private(id) => Format::from_raw(id - 0x80).map_or(0, Format::spec_header_size),
        }
    }

    /// Alignment of chunk starts in the data region (and of the region itself): 16 for ANS, else 8.
    pub fn chunk_alignment(self) -> usize {
        match self {
            Format::Ans => 16,
            Format::Private(id) if id == 0x80 + 2 => 16,
            _ => 8,
        }
    }

    /// Human-readable name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Lz4 => "LZ4",
            Format::Snappy => "Snappy",
            Format::Ans => "ANS",
            Format::GDeflate => "GDeflate",
            Format::Cascaded => "Cascaded",
            Format::Bitcomp => "Bitcomp",
            Format::Zstd => "Zstd",
            Format::Deflate => "Deflate",
            Format::Gzip => "Gzip",
            Format::Private(_) => "gpucomp-private",
        }
    }
}

/// `nvcompBitshuffleMode_t`: LZ4's optional bit-transpose pre-pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum BitshuffleMode {
    /// No pre-pass (default).
    #[default]
    None = 0,
    /// Bit planes from the most significant bit down.
    MsbFirst = 1,
    /// Bit planes from bit 0 up.
    LsbFirst = 2,
}

impl BitshuffleMode {
    /// The mode with this wire value, if any.
    pub fn from_raw(v: u32) -> Option<BitshuffleMode> {
        [BitshuffleMode::None, BitshuffleMode::MsbFirst, BitshuffleMode::LsbFirst].into_iter().find(|m| *m as u32 == v)
    }
}
