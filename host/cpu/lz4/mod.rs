//! LZ4 CPU reference codec (in progress).
