//! The wire contract shared by Parley's api, worker and tests.
//!
//! What crosses a process boundary is defined here once: the error catalogue and the
//! domain error ([`error`]), the stream events of a prompt ([`events`]), the per-user feed's events ([`feed`]), the module hook
//! contract ([`hooks`]), the job payloads ([`jobs`]), the input of a turn ([`turn`]),
//! the skill router's decision ([`route`]), a chat tool's configuration from its
//! definition to a session's resolved config ([`config`]), the strict JSON values the
//! API document describes ([`wire`]) and the Redis key names ([`keys`]). Keeping them in
//! one crate means the api that reads a stream and the worker that writes it cannot
//! disagree on a key or a field.

pub mod client_functions;
pub mod config;
pub mod error;
pub mod events;
pub mod feed;
pub mod hooks;
pub mod jobs;
pub mod output;
pub mod route;
pub mod sampling;
pub mod turn;
pub mod wire;

pub mod keys {
    //! Redis key names. Every key of one prompt shares the hash tag `{<prompt_id>}`, so
    //! all of them land on one slot and the design holds on Redis Cluster (DESIGN §6).

    use uuid::Uuid;

    /// The prefix of every key Parley writes.
    pub const PREFIX: &str = "parley";

    /// The event log (a Redis stream) of one prompt.
    pub fn events(prompt_id: Uuid) -> String {
        format!("{PREFIX}:{{{prompt_id}}}:events")
    }

    /// The pub/sub channel on which cancels are signalled (payload: the prompt id), one
    /// for the whole deployment: each worker process subscribes to it once, instead of
    /// subscribing and unsubscribing a channel per turn; cancels are rare, so every
    /// worker hearing every one costs little. (Pub/sub channels are not keys: no slot.)
    /// On a Redis Cluster the channel is sharded (`SSUBSCRIBE`): it lives on the node of
    /// its slot.
    pub const CANCELS: &str = "parley:cancels";

    /// The pub/sub channel on which each append to the event log of one prompt is
    /// announced (payload `<seq>:<event kind JSON>`), so readers need not poll.
    pub fn notify(prompt_id: Uuid) -> String {
        format!("{PREFIX}:{{{prompt_id}}}:notify")
    }

    /// The feed (a Redis stream) of one user. Its hash tag is `{user:<user_id>}`: every
    /// key of one user's feed lands on one slot, and no command spans two users.
    pub fn user_feed(user_id: Uuid) -> String {
        format!("{PREFIX}:{{user:{user_id}}}:feed")
    }

    /// The channel that announces appends to one user's feed on a Redis Cluster
    /// (sharded, `SPUBLISH`), where one blocking `XREAD` cannot watch the feeds of users
    /// on several slots. Same hash tag as [`user_feed`].
    pub fn user_feed_wake(user_id: Uuid) -> String {
        format!("{PREFIX}:{{user:{user_id}}}:feed:wake")
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn keys_of_one_prompt_share_a_hash_tag() {
            let id = Uuid::now_v7();
            let tag = format!("{{{id}}}");
            assert_eq!(events(id), format!("parley:{tag}:events"));
            assert_eq!(notify(id), format!("parley:{tag}:notify"));
            let hash_tag =
                |key: &str| key[key.find('{').unwrap()..=key.find('}').unwrap()].to_owned();
            assert_eq!(hash_tag(&events(id)), hash_tag(&notify(id)));
        }
    }
}
