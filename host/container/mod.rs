//! nvCOMP containers (in progress).
