//! CPU reference codecs.
pub mod lz4;
