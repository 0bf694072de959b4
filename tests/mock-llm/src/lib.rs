//! The mock LLM (being written).
