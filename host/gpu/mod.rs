//! CUDA runtime (in progress).
