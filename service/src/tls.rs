//! The process's one TLS crypto provider: rustls on ring.
//!
//! The build carries one provider (the workspace's `Cargo.toml` turns off aws-lc-rs
//! wherever a dependency would pull it in). reqwest, rmcp and async-openai are built
//! without a provider of their own and use the process default, so it must be installed
//! before the first HTTP client is built: [`http_client`] does that, and every binary
//! calls [`install_crypto_provider`] at its start (the OpenTelemetry exporter builds its
//! client inside the SDK).

/// Installs ring as the process's default rustls provider; later calls do nothing.
pub fn install_crypto_provider() {
    // `Err` means a provider is installed already: this one, by an earlier call.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A reqwest client builder, after the provider is installed.
pub fn http_client() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_build_with_the_one_provider_installed_once_or_twice() {
        install_crypto_provider();
        install_crypto_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
        assert!(http_client().build().is_ok());
    }
}
