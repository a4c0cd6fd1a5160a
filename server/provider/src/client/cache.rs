//! The server's prompt cache (llama.cpp's slots): each conversation pinned to a slot of its own,
//! requests beside it sent to another, and whether such a request evicts the conversation.

use std::sync::atomic::Ordering;

use tandem_stdx::lock;

use super::HttpModelClient;
use crate::{AsideCache, Purpose, ServerKind, llamacpp};

impl HttpModelClient {
    /// Whether a summary request would evict the conversation's prompt cache: a llama.cpp
    /// server with one slot, or one whose slots share a cache, as a summary has shown (several
    /// slots of their own give summaries one of theirs).
    pub(super) async fn local_aside_cache(&self) -> AsideCache {
        let info = self.server_info().await;
        if info.kind != ServerKind::LlamaCpp {
            return AsideCache::Unknown;
        }
        match info.slots {
            Some(1) => AsideCache::Evicts,
            _ if self.local.asides_evicted.load(Ordering::Relaxed) => AsideCache::Evicts,
            Some(_) => AsideCache::OwnSlot,
            None => AsideCache::Unknown,
        }
    }

    /// The prompt tokens each llama.cpp slot holds before a request beside the conversations,
    /// where it is not known yet whether such a request evicts them. `None` elsewhere, or where
    /// `/slots` is off (`--no-slots`).
    pub(super) async fn slots_before_aside(&self, purpose: Purpose) -> Option<Vec<(u64, u64)>> {
        let info = self.server_info().await;
        let watch = purpose == Purpose::Aside
            && info.kind == ServerKind::LlamaCpp
            && info.slots.is_some_and(|n| n > 1)
            && !self.local.asides_evicted.load(Ordering::Relaxed);
        if !watch {
            return None;
        }
        llamacpp::held_by_slot(&self.transport).await
    }

    /// After a request beside the conversations: a conversation's slot that lost its cache
    /// means the slots share one, and summaries are made without the model from now on.
    pub(super) async fn note_eviction(&self, before: &[(u64, u64)]) {
        let Some(after) = self.slots_before_aside(Purpose::Aside).await else {
            return;
        };
        let aside = self
            .server_info()
            .await
            .slots
            .unwrap_or(1)
            .saturating_sub(1);
        if llamacpp::evicted(before, &after, aside)
            && !self.local.asides_evicted.swap(true, Ordering::Relaxed)
        {
            self.local.notice(
                "llama-server's slots share one prompt cache (its unified KV cache, the default \
                 when -np is not set): a summary made on another slot pushed this conversation \
                 out of it, so summaries are made without the model from now on; to give each \
                 slot a cache of its own, start llama-server with -np N (N conversations plus \
                 one for summaries) and without --kv-unified"
                    .into(),
            );
        }
    }

    /// The llama.cpp slot for `purpose`, where the server has slots.
    pub(super) async fn slot_for(&self, purpose: Purpose) -> Option<u64> {
        let slots = self.server_info().await.slots?;
        Some(lock(&self.local.slots).slot(purpose, slots))
    }
}
