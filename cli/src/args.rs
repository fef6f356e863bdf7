//! Hand-written argument parsing: options, flags and positionals of one command, and the codec
//! options several commands share.
use gpucomp::codec::DEFAULT_CHUNK_SIZE;
use gpucomp::{
    Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, BitshuffleMode, BitstreamKind, CascadedOptions, Codec,
    DataType, Device, Error, Lz4Encoder, Lz4Options, ZstdOptions,
};

use crate::units::parse_size;
use crate::CliError;

/// What a command accepts: flags (`--cpu`) and options taking a value (`--runs 10`, `--runs=10`),
/// and one-letter names for some of them (`-f`, `-o OUT`; grouped as in `-dcf`).
pub struct Spec {
    /// The command's name, for messages; empty for the zstd-style command (no command name).
    pub command: &'static str,
    /// Flags, without the leading `--`.
    pub flags: &'static [&'static str],
    /// Options with a value, without the leading `--`, in groups (the codec options and a
    /// command's own).
    pub options: &'static [&'static [&'static str]],
    /// Short names: `('f', "force")` makes `-f` mean `--force`.
    pub short: &'static [(char, &'static str)],
}

/// A parsed command line: the flags and options given, and the positionals in order.
#[derive(Debug)]
pub struct Parsed {
    command: &'static str,
    flags: Vec<&'static str>,
    options: Vec<(&'static str, String)>,
    positionals: Vec<String>,
}

/// Flags of the commands that compress.
pub const CODEC_FLAGS: &[&str] = &["checksums", "cpu", "gpu"];
/// Options of the commands that compress.
pub const CODEC_OPTIONS: &[&str] = &[
    "algorithm",
    "chunk-size",
    "data-type",
    "bitshuffle",
    "encoder",
    "kind",
    "level",
    "stages",
    "states-per-lane",
    "sub-chunks",
    "histogram-reduction",
];
/// Options of `bench`: the codec options and `--runs`.
pub const BENCH_OPTIONS: &[&[&str]] = &[CODEC_OPTIONS, &["runs"]];
/// Options of `inspect`: table limits, the chunk to show, and how to read a RAW chunk.
pub const INSPECT_OPTIONS: &[&str] = &["chunks", "chunk", "blocks", "algorithm", "data-type", "bitshuffle"];

const BITSHUFFLE: [(&str, BitshuffleMode); 3] =
    [("none", BitshuffleMode::None), ("msb", BitshuffleMode::MsbFirst), ("lsb", BitshuffleMode::LsbFirst)];
const ENCODERS: [(&str, Lz4Encoder); 2] = [("gpucomp", Lz4Encoder::Gpucomp), ("nvcomp", Lz4Encoder::Nvcomp)];
const KINDS: [(&str, Container); 4] = [
    ("native", Container::Stream(BitstreamKind::Native)),
    ("raw", Container::Stream(BitstreamKind::Raw)),
    ("usize", Container::Stream(BitstreamKind::WithUncompressedSize)),
    ("zst", Container::ZstFile),
];

impl Spec {
    /// Parses `tokens` (the arguments after the command name). `-` is a positional (stdin or
    /// stdout); `--` ends the options.
    pub fn parse(&self, tokens: &[String]) -> Result<Parsed, CliError> {
        let mut parsed = Parsed { command: self.command, flags: vec![], options: vec![], positionals: vec![] };
        let mut it = tokens.iter();
        while let Some(token) = it.next() {
            if token == "--" {
                parsed.positionals.extend(it.by_ref().cloned());
                break;
            }
            let Some(body) = token.strip_prefix("--") else {
                match token.strip_prefix('-').filter(|s| !s.is_empty()) {
                    Some(letters) => self.parse_short(letters, &mut it, &mut parsed)?,
                    None => parsed.positionals.push(token.clone()),
                }
                continue;
            };
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            if let Some(&flag) = self.flags.iter().find(|f| **f == name) {
                if inline.is_some() {
                    return Err(CliError::Usage(format!("--{name} takes no value ({})", self.hint())));
                }
                parsed.flags.push(flag);
            } else if let Some(&option) = self.options.iter().flat_map(|group| group.iter()).find(|o| **o == name) {
                let value = inline
                    .or_else(|| it.next().cloned())
                    .ok_or_else(|| CliError::Usage(format!("--{name} needs a value ({})", self.hint())))?;
                parsed.options.push((option, value));
            } else {
                return Err(self.unknown(token));
            }
        }
        Ok(parsed)
    }

    /// `-abc`: flags `a`, `b`, `c`; an option letter takes the rest of the token (`-oOUT`) or
    /// the next token (`-o OUT`).
    fn parse_short<'t>(
        &self,
        letters: &str,
        rest: &mut impl Iterator<Item = &'t String>,
        parsed: &mut Parsed,
    ) -> Result<(), CliError> {
        for (at, letter) in letters.char_indices() {
            let Some(&(_, name)) = self.short.iter().find(|(c, _)| *c == letter) else {
                return Err(self.unknown(&format!("-{letter}")));
            };
            if self.flags.contains(&name) {
                parsed.flags.push(name);
                continue;
            }
            let inline = &letters[at + letter.len_utf8()..];
            let value = if inline.is_empty() { rest.next().cloned() } else { Some(inline.to_string()) };
            let value = value.ok_or_else(|| CliError::Usage(format!("-{letter} needs a value ({})", self.hint())))?;
            parsed.options.push((name, value));
            break;
        }
        Ok(())
    }

    fn unknown(&self, token: &str) -> CliError {
        let command = if self.command.is_empty() { String::new() } else { format!(" for '{}'", self.command) };
        CliError::Usage(format!("unknown option '{token}'{command} ({})", self.hint()))
    }

    fn hint(&self) -> String {
        hint(self.command)
    }
}

/// Where a command's help is: `see 'gpucomp compress --help'`, `see 'gpucomp --help'`.
fn hint(command: &str) -> String {
    if command.is_empty() {
        "see 'gpucomp --help'".into()
    } else {
        format!("see 'gpucomp {command} --help'")
    }
}

impl Parsed {
    /// Whether flag `--name` was given.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }

    /// Which of the exclusive flags `names` was given last, if any (`-k --rm`: `rm`).
    pub fn last_flag(&self, names: &[&str]) -> Option<&'static str> {
        self.flags.iter().rev().find(|f| names.contains(f)).copied()
    }

    /// All positionals, in order.
    pub fn files(&self) -> &[String] {
        &self.positionals
    }

    /// The value of option `--name` (the last one when repeated).
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// Exactly `N` positionals, named in `names` for the error message.
    pub fn positionals<const N: usize>(&self, names: [&str; N]) -> Result<[&str; N], CliError> {
        let hint = hint(self.command);
        match self.positionals.len() {
            n if n < N => Err(CliError::Usage(format!("missing {} ({hint})", names[n..].join(" and ")))),
            n if n > N => Err(CliError::Usage(format!("unexpected argument '{}' ({hint})", self.positionals[N]))),
            _ => Ok(std::array::from_fn(|i| self.positionals[i].as_str())),
        }
    }

    /// Option `--name` as one of `choices` (name, value), or `default` when absent.
    fn choice<T: Copy>(&self, name: &str, choices: &[(&str, T)], default: T) -> Result<T, CliError> {
        let Some(given) = self.option(name) else { return Ok(default) };
        choices.iter().find(|(n, _)| n.eq_ignore_ascii_case(given)).map(|(_, v)| *v).ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            CliError::Usage(format!("--{name} {given}: expected one of {}", names.join(", ")))
        })
    }

    /// Option `--data-type` among the types the algorithm `accepts`, or `default`.
    fn data_type(&self, accepts: impl Fn(DataType) -> bool, default: DataType) -> Result<DataType, CliError> {
        let types: Vec<(&str, DataType)> =
            DataType::ALL.into_iter().filter(|&t| accepts(t)).map(|t| (t.name(), t)).collect();
        self.choice("data-type", &types, default)
    }

    /// Option `--name` as a positive count, or `default`.
    pub fn count(&self, name: &str, default: usize) -> Result<usize, CliError> {
        let Some(given) = self.option(name) else { return Ok(default) };
        given
            .parse::<usize>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| CliError::Usage(format!("--{name} {given}: expected a positive integer")))
    }

    /// Option `--name` as an index (0 or more), or `None` when absent.
    pub fn index(&self, name: &str) -> Result<Option<usize>, CliError> {
        let Some(given) = self.option(name) else { return Ok(None) };
        given
            .parse::<usize>()
            .map(Some)
            .map_err(|_| CliError::Usage(format!("--{name} {given}: expected an index (0, 1, ...)")))
    }

    /// A small option value among `allowed`, or `default` when absent.
    fn small(&self, name: &str, allowed: &[u8], default: u8) -> Result<u8, CliError> {
        let Some(given) = self.option(name) else { return Ok(default) };
        given.parse::<u8>().ok().filter(|v| allowed.contains(v)).ok_or_else(|| {
            let shown: Vec<String> = allowed.iter().take(9).map(u8::to_string).collect();
            let more = if allowed.len() > 9 { ", ..." } else { "" };
            CliError::Usage(format!("--{name} {given}: expected one of {}{more}", shown.join(", ")))
        })
    }

    /// Cascaded's `--stages`: which stages blocks may use, as (RLE, DELTA); `rle+delta` (the
    /// default), `rle`, `delta` or `none` (frame of reference and bit-packing only).
    fn stages(&self) -> Result<(bool, bool), CliError> {
        let stages =
            [("rle+delta", (true, true)), ("rle", (true, false)), ("delta", (false, true)), ("none", (false, false))];
        self.choice("stages", &stages, (true, true))
    }

    /// Zstd's `--level`: libzstd's level, -7 to 22 (default 3).
    fn zstd_level(&self) -> Result<i32, CliError> {
        let Some(given) = self.option("level") else { return Ok(ZstdOptions::DEFAULT_LEVEL) };
        given.parse::<i32>().ok().filter(|l| (ZstdOptions::MIN_LEVEL..=ZstdOptions::MAX_LEVEL).contains(l)).ok_or_else(
            || {
                CliError::Usage(format!(
                    "--level {given}: Zstd takes a level from {} to {}",
                    ZstdOptions::MIN_LEVEL,
                    ZstdOptions::MAX_LEVEL
                ))
            },
        )
    }

    /// The algorithm and its options (`--algorithm`, `--data-type`, `--bitshuffle`, and
    /// `--encoder` where the command accepts it; Cascaded's and Zstd's `--level`, Cascaded's `--stages`, ANS's
    /// `--states-per-lane`, `--sub-chunks` and `--histogram-reduction`).
    pub fn algorithm(&self) -> Result<Algorithm, CliError> {
        #[derive(Clone, Copy)]
        enum Name {
            Lz4,
            Ans,
            Bitcomp(BitcompAlgorithm),
            Cascaded,
            Zstd,
        }
        let names = [
            ("lz4", Name::Lz4),
            ("ans", Name::Ans),
            ("bitcomp", Name::Bitcomp(BitcompAlgorithm::Default)),
            ("bitcomp-sparse", Name::Bitcomp(BitcompAlgorithm::Sparse)),
            ("cascaded", Name::Cascaded),
            ("zstd", Name::Zstd),
        ];
        Ok(match self.choice("algorithm", &names, Name::Lz4)? {
            Name::Lz4 => Algorithm::Lz4(
                Lz4Options::default()
                    .with_data_type(self.data_type(
                        |t| Lz4Options::default().with_data_type(t).element_width().is_ok(),
                        DataType::Char,
                    )?)
                    .with_bitshuffle(self.choice("bitshuffle", &BITSHUFFLE, BitshuffleMode::None)?)
                    .with_encoder(self.choice("encoder", &ENCODERS, Lz4Encoder::Gpucomp)?),
            ),
            Name::Ans => {
                let states_per_lane = self.small("states-per-lane", &[0, 1, 2], 0)?;
                let max_sub_chunk_count = self.small("sub-chunks", &[0, 4, 8, 16, 32, 64], 0)?;
                let histogram_reduction_log2 = self.small("histogram-reduction", &[0, 1, 2, 3, 4, 5, 6, 7, 8], 0)?;
                let data_type = self.data_type(|t| AnsOptions::for_type(t).mode().is_ok(), DataType::Char)?;
                Algorithm::Ans(
                    AnsOptions::for_type(data_type)
                        .with_states_per_lane(states_per_lane)
                        .with_max_sub_chunk_count(max_sub_chunk_count)
                        .with_histogram_reduction_log2(histogram_reduction_log2),
                )
            }
            Name::Bitcomp(algorithm) => {
                Algorithm::Bitcomp(BitcompOptions::default().with_algorithm(algorithm).with_data_type(self.data_type(
                    |t| BitcompOptions::default().with_algorithm(algorithm).with_data_type(t).element_width().is_ok(),
                    DataType::Uchar,
                )?))
            }
            Name::Cascaded => {
                let (rle, delta) = self.stages()?;
                let data_type = self.data_type(
                    |t| CascadedOptions::default().with_data_type(t).element_width().is_ok(),
                    DataType::Uint,
                )?;
                let level = self.small("level", &(0..=255).collect::<Vec<u8>>(), 3)?;
                Algorithm::Cascaded(
                    CascadedOptions::default()
                        .with_data_type(data_type)
                        .with_compression_level(level)
                        .with_rle(rle)
                        .with_delta(delta),
                )
            }
            Name::Zstd => Algorithm::Zstd(ZstdOptions::default().with_level(self.zstd_level()?)),
        })
    }
}

/// What `compress`, `verify` and `bench` write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// One of nvCOMP's three containers.
    Stream(BitstreamKind),
    /// A plain zstd file (Zstd only): the input as concatenated frames of at most the chunk size,
    /// each a RAW Zstd chunk, so an input of any size fits. The `zstd` tool and gpucomp decode every
    /// frame; nvCOMP, reading the file as one RAW chunk, keeps only the first.
    ZstFile,
}

/// The compression settings of `compress`, `verify` and `bench`.
#[derive(Debug, Clone, Copy)]
pub struct CodecArgs {
    /// Algorithm and options.
    pub algorithm: Algorithm,
    /// Uncompressed bytes per chunk.
    pub chunk_size: usize,
    /// Container to write.
    pub kind: Container,
    /// Write nvCOMP checksums (and verify them when decompressing).
    pub checksums: bool,
}

impl CodecArgs {
    /// Reads and validates the codec options (the chunk size is checked by the library).
    pub fn from(p: &Parsed) -> Result<CodecArgs, CliError> {
        let chunk_size = match p.option("chunk-size") {
            None => DEFAULT_CHUNK_SIZE,
            Some(s) => parse_size(s).ok_or_else(|| {
                CliError::Usage(format!("--chunk-size {s}: expected a size such as 65536, 64K or 1M"))
            })?,
        };
        let args = CodecArgs {
            algorithm: p.algorithm()?,
            chunk_size,
            kind: p.choice("kind", &KINDS, Container::Stream(BitstreamKind::Native))?,
            checksums: p.flag("checksums"),
        };
        if args.kind == Container::ZstFile && !matches!(args.algorithm, Algorithm::Zstd(_)) {
            return Err(CliError::Usage(format!(
                "--kind zst writes a plain zstd file: it takes --algorithm zstd, not {}",
                args.algorithm.name()
            )));
        }
        args.codec(Device::Cpu)?;
        Ok(args)
    }

    /// `data` compressed by `codec` (made by [`codec`](Self::codec)) into this container.
    pub fn compress(&self, codec: &Codec, data: &[u8]) -> gpucomp::Result<Vec<u8>> {
        match (self.kind, self.algorithm) {
            (Container::Stream(kind), _) => codec.compress_as(data, kind),
            // zstd's own file of nothing: one frame of content size 0 (a RAW chunk has a byte).
            (Container::ZstFile, Algorithm::Zstd(options)) if data.is_empty() => {
                gpucomp::cpu::zstd::compress_to_vec(data, &options)
                    .map_err(|status| gpucomp::Error::Chunk { chunk: 0, status })
            }
            (Container::ZstFile, Algorithm::Zstd(_)) => {
                let mut file = Vec::new();
                for frame in data.chunks(self.chunk_size) {
                    file.extend(codec.compress_as(frame, BitstreamKind::Raw)?);
                }
                Ok(file)
            }
            (Container::ZstFile, other) => {
                Err(gpucomp::Error::Unsupported(format!("a plain zstd file holds Zstd, not {}", other.name())))
            }
        }
    }

    /// A codec with these settings on `device`.
    pub fn codec(&self, device: Device) -> Result<Codec, CliError> {
        let codec = Codec::on(self.algorithm, device).with_chunk_size(self.chunk_size).map_err(|e| match e {
            Error::InvalidArgument { reason, .. } => CliError::Usage(format!("--chunk-size: {reason}")),
            e => CliError::Usage(format!("--chunk-size: {e}")),
        })?;
        Ok(codec.with_checksums(self.checksums))
    }

    /// One line: algorithm, chunk size, container and checksums.
    pub fn describe(&self) -> String {
        let encoder = match self.algorithm {
            Algorithm::Lz4(o) => {
                ENCODERS.iter().find(|(_, e)| *e == o.encoder).map_or(String::new(), |(n, _)| format!(" {n} encoder"))
            }
            Algorithm::Zstd(o) => format!(" level {}", o.level),
            _ => String::new(),
        };
        let (chunking, container) = match self.kind {
            Container::Stream(kind @ BitstreamKind::Native) => {
                (format!(", chunks of {}", crate::units::bytes(self.chunk_size as u64)), kind_name(kind))
            }
            Container::Stream(kind) => (String::new(), kind_name(kind)),
            Container::ZstFile => {
                (format!(", frames of {}", crate::units::bytes(self.chunk_size as u64)), "a plain zstd file")
            }
        };
        let checksums = if self.checksums { ", with checksums" } else { "" };
        format!("{}{encoder}{chunking}, {container}{checksums}", describe_algorithm(&self.algorithm))
    }
}

/// What a stream records of its algorithm: `LZ4 (char, bitshuffle none)`.
pub fn describe_algorithm(algorithm: &Algorithm) -> String {
    match algorithm {
        Algorithm::Lz4(o) => {
            let shuffle = BITSHUFFLE.iter().find(|(_, m)| *m == o.bitshuffle).map_or("?", |(n, _)| n);
            format!("LZ4 ({}, bitshuffle {shuffle})", o.data_type.name())
        }
        other => other.name().to_string(),
    }
}

/// nvCOMP's name of a container kind.
pub fn kind_name(kind: BitstreamKind) -> &'static str {
    match kind {
        BitstreamKind::Native => "NVCOMP_NATIVE",
        BitstreamKind::Raw => "RAW",
        BitstreamKind::WithUncompressedSize => "WITH_UNCOMPRESSED_SIZE",
    }
}
