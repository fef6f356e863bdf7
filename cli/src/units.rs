//! Sizes, durations, ratios and throughputs: parsing and human-readable formatting.
//! Sizes use binary units (KiB = 1024 B); throughput uses decimal GB/s (10^9 bytes per second).
use std::time::Duration;

/// Parses a size: a number of bytes with an optional binary suffix `K`, `M` or `G`
/// (also `KB`, `KiB`, ...; any case): `65536`, `64K`, `1M`.
pub fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return None,
    };
    number.parse::<usize>().ok()?.checked_mul(1 << shift)
}

/// `512 B`, `64.0 KiB`, `1.50 GiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let decimals = if value < 10.0 { 2 } else { 1 };
    format!("{value:.decimals$} {}", UNITS[unit])
}

/// `850 µs`, `12.3 ms`, `1.23 s`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} µs", s * 1e6)
    }
}

/// Throughput of `n` bytes in `d`, in GB/s (10^9 bytes per second), to about three digits.
pub fn gbps(n: u64, d: Duration) -> String {
    let s = d.as_secs_f64();
    if s <= 0.0 {
        return "- GB/s".into();
    }
    let rate = n as f64 / s / 1e9;
    let decimals = if rate >= 10.0 {
        1
    } else if rate >= 1.0 {
        2
    } else {
        3
    };
    format!("{rate:.decimals$} GB/s")
}

/// Compression ratio, uncompressed over compressed (`-` for an empty stream).
pub fn ratio(uncompressed: u64, compressed: u64) -> String {
    if compressed == 0 {
        "-".into()
    } else {
        format!("{:.2}", uncompressed as f64 / compressed as f64)
    }
}
