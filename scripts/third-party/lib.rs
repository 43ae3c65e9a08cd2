// Empty: see Cargo.toml.
