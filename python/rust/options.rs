//! nvidia.nvcomp's codec options (algorithm name, `data_type`, per-algorithm keywords) mapped to
//! gpucomp's [`Algorithm`], and array-protocol type strings mapped to nvCOMP data types.
use gpucomp::{
    Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, BitshuffleMode, CascadedMode, CascadedOptions, DataType,
    Lz4Options, ZstdOptions,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

/// The algorithms nvCOMP names that gpucomp implements, by nvCOMP's spelling.
pub const ALGORITHMS: [&str; 5] = ["LZ4", "Cascaded", "ANS", "Bitcomp", "Zstd"];
/// nvCOMP algorithms gpucomp does not implement (refused with a ValueError that says so).
const NOT_IMPLEMENTED: [&str; 5] = ["Snappy", "GDeflate", "Deflate", "Gzip", "CRC32"];

/// The keyword options each algorithm takes (nvCOMP 6's names; Cascaded also nvCOMP's older
/// `num_RLEs` / `num_deltas` / `use_bp`; Zstd gpucomp's own `level`: nvCOMP's Python API
/// documents no Zstd option).
pub fn option_names(algorithm: &str) -> &'static [&'static str] {
    match algorithm {
        "LZ4" => &["data_type", "bitshuffle_mode"],
        "ANS" => &["data_type", "max_sub_chunk_count", "states_per_lane", "histogram_reduction_log2"],
        "Bitcomp" => &["data_type", "algorithm_type"],
        "Cascaded" => &["data_type", "mode", "compression_level", "num_RLEs", "num_deltas", "use_bp"],
        "Zstd" => &["level"],
        _ => &[],
    }
}

/// nvCOMP's spelling of an algorithm name given in any letter case.
pub fn canonical_algorithm(name: &str) -> PyResult<&'static str> {
    if let Some(n) = ALGORITHMS.iter().find(|a| a.eq_ignore_ascii_case(name)) {
        return Ok(n);
    }
    if let Some(n) = NOT_IMPLEMENTED.iter().find(|a| a.eq_ignore_ascii_case(name)) {
        return Err(PyValueError::new_err(format!(
            "algorithm {n:?} is an nvCOMP algorithm gpucomp does not implement; gpucomp has {}",
            ALGORITHMS.join(", ")
        )));
    }
    Err(PyValueError::new_err(format!("unknown algorithm {name:?}; expected one of {}", ALGORITHMS.join(", "))))
}

/// The algorithm `name` with the keyword `options` (nvCOMP's names and value types).
/// An option the algorithm does not take is a TypeError; a bad value a ValueError.
pub fn algorithm_from_options(name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Algorithm> {
    let accepted = option_names(name);
    let mut get = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(match options {
            Some(d) => d.get_item(key)?,
            None => None,
        })
    };
    if let Some(d) = options {
        for key in d.keys() {
            let key: String = key.extract()?;
            if !accepted.contains(&key.as_str()) {
                return Err(PyTypeError::new_err(format!(
                    "Codec() got an unexpected keyword argument '{key}' for algorithm {name}; it takes {}",
                    accepted.join(", ")
                )));
            }
        }
    }
    let data_type = get("data_type")?.map(|t| parse_data_type(&t)).transpose()?;
    let algorithm = match name {
        "LZ4" => {
            let mut o = Lz4Options::default();
            if let Some(t) = data_type {
                o = o.with_data_type(t);
            }
            if let Some(m) = get("bitshuffle_mode")? {
                o = o.with_bitshuffle(parse_bitshuffle(&m)?);
            }
            Algorithm::Lz4(o)
        }
        "ANS" => {
            let mut o = AnsOptions::default();
            if let Some(t) = data_type {
                o = o.with_data_type(t);
            }
            if let Some(v) = get("max_sub_chunk_count")? {
                o = o.with_max_sub_chunk_count(small_int(&v, "max_sub_chunk_count")?);
            }
            if let Some(v) = get("states_per_lane")? {
                o = o.with_states_per_lane(small_int(&v, "states_per_lane")?);
            }
            if let Some(v) = get("histogram_reduction_log2")? {
                o = o.with_histogram_reduction_log2(small_int(&v, "histogram_reduction_log2")?);
            }
            if let Err(status) = o.validate() {
                return Err(PyValueError::new_err(format!(
                    "ANS options {o:?} are invalid ({status}): data_type one of |i1 |u1 <f2 <f4 |f1; \
                     max_sub_chunk_count 0 or a power of two in 4..=64; states_per_lane 0, 1 or 2; \
                     histogram_reduction_log2 0..=8"
                )));
            }
            Algorithm::Ans(o)
        }
        "Bitcomp" => {
            let mut o = BitcompOptions::default();
            if let Some(t) = data_type {
                o = o.with_data_type(t);
            }
            if let Some(v) = get("algorithm_type")? {
                let raw: u32 = v.extract().map_err(|_| PyTypeError::new_err("algorithm_type: expected an int"))?;
                o = o.with_algorithm(BitcompAlgorithm::from_raw(raw).ok_or_else(|| {
                    PyValueError::new_err(format!("algorithm_type {raw}: Bitcomp has 0 (default) and 1 (sparse)"))
                })?);
            }
            Algorithm::Bitcomp(o)
        }
        "Cascaded" => Algorithm::Cascaded(cascaded_options(data_type, &mut get)?),
        "Zstd" => {
            let mut o = ZstdOptions::default();
            if let Some(v) = get("level")? {
                let level: i32 = v.extract().map_err(|_| PyTypeError::new_err("level: expected an int"))?;
                o = o.with_level(level);
            }
            o.check().map_err(|e| PyValueError::new_err(e.to_string()))?;
            Algorithm::Zstd(o)
        }
        _ => return Err(PyValueError::new_err(format!("unknown algorithm {name:?}"))),
    };
    algorithm.element_width().map_err(|e| PyValueError::new_err(format!("{name}: {e}")))?;
    Ok(algorithm)
}

/// Cascaded's options. nvCOMP's older `num_RLEs` / `num_deltas` map to nvCOMP 6's pipeline of
/// `compression_level` stage slots (level 3 = RLE, DELTA, RLE = the old defaults 2 RLEs, 1 delta)
/// with the RLE / DELTA stages allowed when their count is non-zero.
fn cascaded_options<'py>(
    data_type: Option<DataType>,
    get: &mut impl FnMut(&str) -> PyResult<Option<Bound<'py, PyAny>>>,
) -> PyResult<CascadedOptions> {
    let mut o = CascadedOptions::default();
    if let Some(t) = data_type {
        o = o.with_data_type(t);
    }
    if let Some(m) = get("mode")? {
        o = o.with_mode(parse_cascaded_mode(&m)?);
    }
    let rles = get("num_RLEs")?.map(|v| small_int(&v, "num_RLEs")).transpose()?;
    let deltas = get("num_deltas")?.map(|v| small_int(&v, "num_deltas")).transpose()?;
    if rles.is_some() || deltas.is_some() {
        let (r, d) = (rles.unwrap_or(2), deltas.unwrap_or(1));
        o = o.with_rle(r > 0).with_delta(d > 0).with_compression_level(r.saturating_add(d).min(3));
    }
    if let Some(level) = get("compression_level")? {
        o = o.with_compression_level(small_int(&level, "compression_level")?);
    }
    if let Some(bp) = get("use_bp")? {
        if !bp.is_truthy()? {
            return Err(PyValueError::new_err(
                "use_bp=False: nvCOMP 6's Cascaded format always bit-packs (frame of reference + bit-packing)",
            ));
        }
    }
    Ok(o)
}

fn small_int(v: &Bound<'_, PyAny>, what: &str) -> PyResult<u8> {
    let i: i64 = v.extract().map_err(|_| PyTypeError::new_err(format!("{what}: expected an int")))?;
    u8::try_from(i).map_err(|_| PyValueError::new_err(format!("{what}: {i} is out of range 0..=255")))
}

fn parse_bitshuffle(v: &Bound<'_, PyAny>) -> PyResult<BitshuffleMode> {
    if let Ok(i) = v.extract::<u32>() {
        return BitshuffleMode::from_raw(i)
            .ok_or_else(|| PyValueError::new_err(format!("bitshuffle_mode {i}: expected 0, 1 or 2")));
    }
    let s: String = v.str()?.extract()?;
    match s.rsplit('.').next().unwrap_or(&s) {
        "NVCOMP_BITSHUFFLE_NONE" | "NONE" => Ok(BitshuffleMode::None),
        "NVCOMP_BITSHUFFLE_MSB_FIRST" | "MSB_FIRST" => Ok(BitshuffleMode::MsbFirst),
        "NVCOMP_BITSHUFFLE_LSB_FIRST" | "LSB_FIRST" => Ok(BitshuffleMode::LsbFirst),
        _ => Err(PyValueError::new_err(format!(
            "bitshuffle_mode {s:?}: expected NVCOMP_BITSHUFFLE_NONE, NVCOMP_BITSHUFFLE_MSB_FIRST or \
             NVCOMP_BITSHUFFLE_LSB_FIRST"
        ))),
    }
}

fn parse_cascaded_mode(v: &Bound<'_, PyAny>) -> PyResult<CascadedMode> {
    if let Ok(i) = v.extract::<u32>() {
        return match i {
            0 | 1 => Ok(CascadedMode::Asymmetric),
            2 => Ok(CascadedMode::Symmetric),
            _ => Err(PyValueError::new_err(format!("mode {i}: expected 1 (ASYMMETRIC) or 2 (SYMMETRIC)"))),
        };
    }
    let s: String = v.str()?.extract()?;
    match s.rsplit('.').next().unwrap_or(&s).to_ascii_uppercase().as_str() {
        "ASYMMETRIC" | "NVCOMP_CASCADED_MODE_ASYMMETRIC" => Ok(CascadedMode::Asymmetric),
        "SYMMETRIC" | "NVCOMP_CASCADED_MODE_SYMMETRIC" => Ok(CascadedMode::Symmetric),
        _ => Err(PyValueError::new_err(format!("mode {s:?}: expected ASYMMETRIC or SYMMETRIC"))),
    }
}

/// A data type given as an array-protocol type string (`"<i4"`, `"i4"`, `"|u1"`; nvCOMP's
/// `"|f1"` for FLOAT8 E4M3 and `"|b1"` for BITS), an `NVCOMP_TYPE_*` name, or anything
/// `numpy.dtype` accepts (`numpy.int32`, `"int32"`).
pub fn parse_data_type(v: &Bound<'_, PyAny>) -> PyResult<DataType> {
    if let Ok(s) = v.cast::<PyString>() {
        let s = s.to_str()?;
        if let Some(t) = data_type_from_typestr(s) {
            return Ok(t);
        }
        if let Some(t) = s.strip_prefix("NVCOMP_TYPE_").and_then(nvcomp_type_name) {
            return Ok(t);
        }
    }
    // numpy's own spelling of the type, e.g. numpy.float32 or "float32".
    let np = v.py().import("numpy")?;
    let typestr: String = np
        .call_method1("dtype", (v,))
        .and_then(|d| d.getattr("str"))
        .and_then(|s| s.extract())
        .map_err(|_| PyTypeError::new_err(format!("data_type: expected an array-protocol type string, got {v}")))?;
    data_type_from_typestr(&typestr)
        .ok_or_else(|| PyValueError::new_err(format!("data_type {typestr:?} is not an nvCOMP data type")))
}

/// The nvCOMP type of an array-protocol type string; byte order `<`, `|`, `=` or none
/// (big-endian only for one-byte types).
pub fn data_type_from_typestr(s: &str) -> Option<DataType> {
    let body = match s.as_bytes().first()? {
        b'<' | b'|' | b'=' => &s[1..],
        b'>' if s.ends_with('1') => &s[1..],
        b'>' => return None,
        _ => s,
    };
    Some(match body {
        "i1" => DataType::Char,
        "u1" => DataType::Uchar,
        "i2" => DataType::Short,
        "u2" => DataType::Ushort,
        "i4" => DataType::Int,
        "u4" => DataType::Uint,
        "i8" => DataType::LongLong,
        "u8" => DataType::ULongLong,
        "f1" => DataType::Float8E4M3,
        "f2" => DataType::Float16,
        "f4" => DataType::Float32,
        "f8" => DataType::Float64,
        "b1" => DataType::Bits,
        _ => return None,
    })
}

fn nvcomp_type_name(s: &str) -> Option<DataType> {
    Some(match s {
        "CHAR" => DataType::Char,
        "UCHAR" | "UINT8" => DataType::Uchar,
        "SHORT" => DataType::Short,
        "USHORT" => DataType::Ushort,
        "INT" => DataType::Int,
        "UINT" => DataType::Uint,
        "LONGLONG" => DataType::LongLong,
        "ULONGLONG" => DataType::ULongLong,
        "FLOAT8_E4M3" => DataType::Float8E4M3,
        "FLOAT16" => DataType::Float16,
        "FLOAT32" => DataType::Float32,
        "FLOAT64" => DataType::Float64,
        "BITS" => DataType::Bits,
        _ => return None,
    })
}

/// The array-protocol type string nvCOMP's Python API gives a data type.
pub fn typestr_of(t: DataType) -> &'static str {
    match t {
        DataType::Char => "|i1",
        DataType::Uchar => "|u1",
        DataType::Short => "<i2",
        DataType::Ushort => "<u2",
        DataType::Int => "<i4",
        DataType::Uint => "<u4",
        DataType::LongLong => "<i8",
        DataType::ULongLong => "<u8",
        DataType::Float8E4M3 => "|f1",
        DataType::Float16 => "<f2",
        DataType::Float32 => "<f4",
        DataType::Float64 => "<f8",
        DataType::Bits => "|b1",
    }
}

/// The data type an algorithm's options name.
pub fn data_type_of(algorithm: &Algorithm) -> DataType {
    match algorithm {
        Algorithm::Lz4(o) => o.data_type,
        Algorithm::Ans(o) => o.data_type,
        Algorithm::Bitcomp(o) => o.data_type,
        Algorithm::Cascaded(o) => o.data_type,
        _ => DataType::Uchar,
    }
}
