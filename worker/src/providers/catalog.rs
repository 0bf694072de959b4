//! [`Catalog`]: the models a deployment serves, each as a [`Route`] to its provider,
//! and the fallback chains between them.

use std::sync::Arc;

use parley_runtime::breaker::Breakers;

use super::{ModelConfig, Provider, ProviderConfig, ProviderKind, Route, demo};

/// The models this deployment serves, and the default one.
#[derive(Clone)]
pub struct Catalog {
    routes: Vec<Route>,
    default: String,
    /// The per-user breakers: a user whose turns keep failing goes to the fallback chain.
    users: Option<Arc<dyn Breakers>>,
}

/// A configuration that names a provider that does not exist, or no model.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("model `{model}` names provider `{provider}`, which is not configured")]
    UnknownProvider { model: String, provider: String },
    #[error("providers are configured but no models")]
    NoModels,
    #[error("the default model `{0}` is not among the configured models")]
    UnknownDefault(String),
    #[error("model `{model}` falls back to `{fallback}`, which is not a configured model")]
    UnknownFallback { model: String, fallback: String },
    #[error("model `{model}` names `{fallback}` in its fallback chain twice, or itself")]
    RepeatedFallback { model: String, fallback: String },
}

impl Catalog {
    /// Builds the catalog. With no providers at all, the offline demo model is the only
    /// model; it is never offered when a real provider is configured.
    pub fn new(
        providers: &[ProviderConfig],
        models: &[ModelConfig],
        default: Option<&str>,
    ) -> Result<Self, CatalogError> {
        if providers.is_empty() {
            return Ok(Self {
                routes: vec![demo::route()],
                default: demo::MODEL.to_owned(),
                users: None,
            });
        }
        if models.is_empty() {
            return Err(CatalogError::NoModels);
        }
        let clients: Vec<(&ProviderConfig, Arc<dyn Provider>)> =
            providers.iter().map(|p| (p, p.kind.build(p))).collect();
        let mut routes = Vec::with_capacity(models.len());
        for model in models {
            let (provider, client) = clients
                .iter()
                .find(|(provider, _)| provider.name == model.provider)
                .ok_or_else(|| CatalogError::UnknownProvider {
                    model: model.id.clone(),
                    provider: model.provider.clone(),
                })?;
            routes.push(Route {
                model: model.id.clone(),
                upstream: model.upstream.clone().unwrap_or_else(|| model.id.clone()),
                vendor: model.provider.clone(),
                max_context: model.max_context,
                max_output_tokens: model.max_output_tokens,
                vision: model.vision,
                structured_outputs: model.structured_outputs,
                price: model.price,
                thinking_budget: model.thinking_budget,
                prompt_cache: model.prompt_cache,
                first_token_timeout: provider.first_token_timeout,
                // Anthropic continues a prefilled answer, but not with extended thinking
                // (the answer must start with its thinking).
                continue_partial: match provider.kind {
                    ProviderKind::Anthropic => model.thinking_budget.is_none(),
                    ProviderKind::Openai => provider.continue_partial,
                },
                breakers: None,
                fallback: model.fallback.clone(),
                provider: client.clone(),
                demo: false,
            });
        }
        for model in models {
            for (i, fallback) in model.fallback.iter().enumerate() {
                if !models.iter().any(|m| m.id == *fallback) {
                    return Err(CatalogError::UnknownFallback {
                        model: model.id.clone(),
                        fallback: fallback.clone(),
                    });
                }
                if *fallback == model.id || model.fallback[..i].contains(fallback) {
                    return Err(CatalogError::RepeatedFallback {
                        model: model.id.clone(),
                        fallback: fallback.clone(),
                    });
                }
            }
        }
        let default = default
            .map(str::to_owned)
            .unwrap_or_else(|| routes[0].model.clone());
        if !routes.iter().any(|r| r.model == default) {
            return Err(CatalogError::UnknownDefault(default));
        }
        Ok(Self {
            routes,
            default,
            users: None,
        })
    }

    /// Every provider call of these routes asks `providers` first (keyed by the
    /// provider's name) and reports how it ended; every turn answered by a model asks
    /// `users` (keyed by the user) whether to skip to the fallback chain, and reports
    /// how it ended.
    pub fn with_breakers(mut self, providers: Arc<dyn Breakers>, users: Arc<dyn Breakers>) -> Self {
        for route in &mut self.routes {
            if !route.is_demo() {
                route.breakers = Some(providers.clone());
            }
        }
        if !self.routes.iter().all(Route::is_demo) {
            self.users = Some(users);
        }
        self
    }

    /// The provider breakers (none with the offline demo model only).
    pub fn provider_breakers(&self) -> Option<&Arc<dyn Breakers>> {
        self.routes.iter().find_map(|r| r.breakers.as_ref())
    }

    /// The per-user breakers (none with the offline demo model only).
    pub fn user_breakers(&self) -> Option<&Arc<dyn Breakers>> {
        self.users.as_ref()
    }

    /// The route of a model id, or of the default model when none is asked for.
    pub fn resolve(&self, model: Option<&str>) -> Option<&Route> {
        let wanted = model.unwrap_or(&self.default);
        self.routes.iter().find(|r| r.model == wanted)
    }

    /// The routes that may answer a turn for a model id (or the default model): its own,
    /// then those of its fallback chain, in order.
    pub fn chain(&self, model: Option<&str>) -> Option<Vec<Route>> {
        let first = self.resolve(model)?;
        let mut chain = vec![first.clone()];
        chain.extend(
            first
                .fallback
                .iter()
                .filter_map(|id| self.resolve(Some(id)).cloned()),
        );
        Some(chain)
    }

    /// Every model id, the default first.
    /// The models a turn may not ask for a structured output.
    pub fn text_only_ids(&self) -> Vec<String> {
        self.routes
            .iter()
            .filter(|r| !r.structured_outputs)
            .map(|r| r.model.clone())
            .collect()
    }

    /// The models that read images.
    pub fn vision_ids(&self) -> Vec<String> {
        self.routes
            .iter()
            .filter(|r| r.vision)
            .map(|r| r.model.clone())
            .collect()
    }

    pub fn model_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = vec![self.default.clone()];
        ids.extend(
            self.routes
                .iter()
                .map(|r| r.model.clone())
                .filter(|m| *m != self.default),
        );
        ids
    }

    pub fn default_model(&self) -> &str {
        &self.default
    }
}
