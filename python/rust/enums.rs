//! nvidia.nvcomp's enumerations, by nvCOMP's member names.
use gpucomp::container::ChecksumPolicy as RustChecksumPolicy;
use pyo3::prelude::*;

/// How a buffer is framed (nvidia.nvcomp.BitstreamKind).
#[pyclass(eq, eq_int, frozen, module = "gpucomp")]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum BitstreamKind {
    /// Chunked, with nvCOMP's header and chunk tables (checksums possible).
    NVCOMP_NATIVE = 0,
    /// One bare chunk of the algorithm, no header.
    RAW = 1,
    /// One chunk after a little-endian u64 holding the uncompressed size.
    WITH_UNCOMPRESSED_SIZE = 2,
}

impl BitstreamKind {
    /// gpucomp's value.
    pub fn to_rust(self) -> gpucomp::BitstreamKind {
        match self {
            BitstreamKind::NVCOMP_NATIVE => gpucomp::BitstreamKind::Native,
            BitstreamKind::RAW => gpucomp::BitstreamKind::Raw,
            BitstreamKind::WITH_UNCOMPRESSED_SIZE => gpucomp::BitstreamKind::WithUncompressedSize,
        }
    }

    /// The member named `name` (nvCOMP's spelling).
    pub fn from_name(name: &str) -> Option<BitstreamKind> {
        Some(match name {
            "NVCOMP_NATIVE" => BitstreamKind::NVCOMP_NATIVE,
            "RAW" => BitstreamKind::RAW,
            "WITH_UNCOMPRESSED_SIZE" => BitstreamKind::WITH_UNCOMPRESSED_SIZE,
            _ => return None,
        })
    }
}

/// When checksums are computed and verified (nvidia.nvcomp.ChecksumPolicy).
#[pyclass(eq, eq_int, frozen, module = "gpucomp")]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum ChecksumPolicy {
    /// Neither compute nor verify (the default).
    NO_COMPUTE_NO_VERIFY = 0,
    /// Compute when encoding; never verify.
    COMPUTE_AND_NO_VERIFY = 1,
    /// Do not compute; verify stored checksums when present.
    NO_COMPUTE_AND_VERIFY_IF_PRESENT = 2,
    /// Compute; verify stored checksums when present.
    COMPUTE_AND_VERIFY_IF_PRESENT = 3,
    /// Compute; verify, and fail on a stream without checksums.
    COMPUTE_AND_VERIFY = 4,
}

impl ChecksumPolicy {
    /// gpucomp's value.
    pub fn to_rust(self) -> RustChecksumPolicy {
        match self {
            ChecksumPolicy::NO_COMPUTE_NO_VERIFY => RustChecksumPolicy::NoComputeNoVerify,
            ChecksumPolicy::COMPUTE_AND_NO_VERIFY => RustChecksumPolicy::ComputeAndNoVerify,
            ChecksumPolicy::NO_COMPUTE_AND_VERIFY_IF_PRESENT => RustChecksumPolicy::NoComputeAndVerifyIfPresent,
            ChecksumPolicy::COMPUTE_AND_VERIFY_IF_PRESENT => RustChecksumPolicy::ComputeAndVerifyIfPresent,
            ChecksumPolicy::COMPUTE_AND_VERIFY => RustChecksumPolicy::ComputeAndVerify,
        }
    }

    /// The member named `name` (nvCOMP's spelling).
    pub fn from_name(name: &str) -> Option<ChecksumPolicy> {
        Some(match name {
            "NO_COMPUTE_NO_VERIFY" => ChecksumPolicy::NO_COMPUTE_NO_VERIFY,
            "COMPUTE_AND_NO_VERIFY" => ChecksumPolicy::COMPUTE_AND_NO_VERIFY,
            "NO_COMPUTE_AND_VERIFY_IF_PRESENT" => ChecksumPolicy::NO_COMPUTE_AND_VERIFY_IF_PRESENT,
            "COMPUTE_AND_VERIFY_IF_PRESENT" => ChecksumPolicy::COMPUTE_AND_VERIFY_IF_PRESENT,
            "COMPUTE_AND_VERIFY" => ChecksumPolicy::COMPUTE_AND_VERIFY,
            _ => return None,
        })
    }
}

/// Where an [`Array`](crate::array::Array)'s memory lives (nvidia.nvcomp.ArrayBufferKind).
#[pyclass(eq, eq_int, frozen, module = "gpucomp")]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
pub enum ArrayBufferKind {
    /// Host memory.
    STRIDED_HOST = 0,
    /// Device memory.
    STRIDED_DEVICE = 1,
}

/// An enum member given as the member itself, its name, or its integer value.
pub fn parse_enum<'py, T>(
    value: &Bound<'py, PyAny>,
    what: &str,
    from_name: fn(&str) -> Option<T>,
    from_int: fn(i64) -> Option<T>,
) -> PyResult<T>
where
    T: Copy + pyo3::PyClass,
{
    if let Ok(v) = value.extract::<PyRef<'py, T>>() {
        return Ok(*v);
    }
    if let Ok(s) = value.extract::<String>() {
        return from_name(s.rsplit('.').next().unwrap_or(&s))
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("{what}: unknown member {s:?}")));
    }
    if let Ok(i) = value.extract::<i64>() {
        return from_int(i).ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("{what}: no member {i}")));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "{what}: expected a {what} member, its name or its value, got {}",
        value.get_type().name()?
    )))
}

/// `name` and `value`, as pybind11's (nvCOMP's) and Python's enums have them.
macro_rules! name_and_value {
    ($ty:ty) => {
        #[pymethods]
        impl $ty {
            /// The member's name.
            #[getter]
            fn name(&self) -> String {
                format!("{self:?}")
            }

            /// The member's integer value.
            #[getter]
            fn value(&self) -> i64 {
                *self as i64
            }
        }
    };
}

name_and_value!(BitstreamKind);
name_and_value!(ChecksumPolicy);
name_and_value!(ArrayBufferKind);
