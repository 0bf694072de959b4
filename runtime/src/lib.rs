//! Parley's two seams (being written).
