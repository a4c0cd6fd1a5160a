//! Ordered, merged delivery to a face: one queue and one task per connection, shared by every
//! face that speaks to a client (`tandem lsp`, ACP).
//!
//! Everything goes out in the order it was queued. Streamed pieces (text, reasoning, command
//! output) that queue up while the client is slow go out merged, so a fast stream costs one
//! message per batch rather than one per token; anything else first flushes the held piece, so an
//! approval request or a file request never overtakes the updates before it.

use std::future::Future;

use tokio::sync::mpsc;

use crate::events::Event;

/// Where a face's queue delivers.
pub trait Deliver: Send + 'static {
    /// Which stream an event belongs to (a session and turn): pieces merge only within one.
    type Tag: PartialEq + Send + 'static;
    /// The face's own items (approval requests, file requests, ...), kept in order with events.
    type Other: Send + 'static;

    fn event(&mut self, tag: Self::Tag, event: Event) -> impl Future<Output = ()> + Send;
    fn other(&mut self, item: Self::Other) -> impl Future<Output = ()> + Send;
}

enum Item<T, X> {
    Event(T, Event),
    Other(X),
    /// Everything queued before it has been delivered: tell the waiter.
    Flush(tokio::sync::oneshot::Sender<()>),
}

/// The sending side of a face's queue. Cloning it is cheap; the task ends when every sender is
/// gone.
pub struct Outbox<T, X> {
    tx: mpsc::UnboundedSender<Item<T, X>>,
}

impl<T, X> Clone for Outbox<T, X> {
    fn clone(&self) -> Self {
        Self {
            tx: self.tx.clone(),
        }
    }
}

/// An [`Outbox`] that does not keep the task alive (for items queued from the task's own work).
pub struct WeakOutbox<T, X> {
    tx: mpsc::WeakUnboundedSender<Item<T, X>>,
}

impl<T, X> Clone for WeakOutbox<T, X> {
    fn clone(&self) -> Self {
        Self {
            tx: self.tx.clone(),
        }
    }
}

impl<T, X> WeakOutbox<T, X> {
    pub fn upgrade(&self) -> Option<Outbox<T, X>> {
        self.tx.upgrade().map(|tx| Outbox { tx })
    }
}

impl<T: PartialEq + Send + 'static, X: Send + 'static> Outbox<T, X> {
    /// Starts the delivering task.
    pub fn start<D: Deliver<Tag = T, Other = X>>(deliver: D) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run(deliver, rx));
        Self { tx }
    }

    /// Queues an event; `false` when the task is gone (the connection closed).
    pub fn event(&self, tag: T, event: Event) -> bool {
        self.tx.send(Item::Event(tag, event)).is_ok()
    }

    /// Queues one of the face's own items; gives it back when the task is gone.
    pub fn send(&self, item: X) -> Result<(), X> {
        self.tx.send(Item::Other(item)).map_err(|e| match e.0 {
            Item::Other(x) => x,
            Item::Event(..) | Item::Flush(_) => unreachable!("only an Other was sent"),
        })
    }

    /// Resolves once everything queued before this call has been delivered (at once when the
    /// task is gone): a face that is about to answer `shutdown` lets the last turn's end out
    /// first.
    pub fn flushed(&self) -> impl Future<Output = ()> + Send + 'static {
        let (done, wait) = tokio::sync::oneshot::channel();
        let _ = self.tx.send(Item::Flush(done));
        async move {
            let _ = wait.await;
        }
    }

    pub fn downgrade(&self) -> WeakOutbox<T, X> {
        WeakOutbox {
            tx: self.tx.downgrade(),
        }
    }
}

async fn run<D: Deliver>(mut deliver: D, mut rx: mpsc::UnboundedReceiver<Item<D::Tag, D::Other>>) {
    let mut held: Option<(D::Tag, Event)> = None;
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Item::Event(tag, event) => {
                    let merged = held
                        .as_mut()
                        .is_some_and(|(t, e)| *t == tag && e.merge(&event));
                    if !merged {
                        if let Some((t, e)) = held.take() {
                            deliver.event(t, e).await;
                        }
                        if event.is_piece() {
                            held = Some((tag, event));
                        } else {
                            deliver.event(tag, event).await;
                        }
                    }
                }
                Item::Other(x) => {
                    if let Some((t, e)) = held.take() {
                        deliver.event(t, e).await;
                    }
                    deliver.other(x).await;
                }
                Item::Flush(done) => {
                    if let Some((t, e)) = held.take() {
                        deliver.event(t, e).await;
                    }
                    let _ = done.send(());
                }
            }
            next = rx.try_recv().ok();
        }
        if let Some((t, e)) = held.take() {
            deliver.event(t, e).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<String>>>);

    impl Deliver for Log {
        type Tag = &'static str;
        type Other = &'static str;
        async fn event(&mut self, tag: &'static str, event: Event) {
            let text = match event {
                Event::Text { delta } => format!("{tag} text {delta}"),
                Event::Reasoning { delta } => format!("{tag} reasoning {delta}"),
                other => format!("{tag} {other:?}"),
            };
            self.0.lock().unwrap().push(text);
        }
        async fn other(&mut self, item: &'static str) {
            self.0.lock().unwrap().push(format!("other {item}"));
        }
    }

    fn text(s: &str) -> Event {
        Event::Text { delta: s.into() }
    }

    #[tokio::test]
    async fn flushed_resolves_once_everything_queued_before_it_is_delivered() {
        let log = Log::default();
        let outbox = Outbox::start(log.clone());
        outbox.event("t1", text("a"));
        outbox.event("t1", text("b"));
        outbox.send("approval").unwrap();
        // A piece the task would hold, waiting for more to merge with.
        outbox.event("t1", text("c"));
        outbox.flushed().await;
        assert_eq!(
            *log.0.lock().unwrap(),
            ["t1 text ab", "other approval", "t1 text c"]
        );
    }

    #[tokio::test]
    async fn queued_pieces_merge_in_order_and_others_flush_them() {
        let log = Log::default();
        // Queue everything before the task runs, as a slow client would see it.
        let outbox = Outbox::start(log.clone());
        outbox.event("t1", text("Hel"));
        outbox.event("t1", text("lo"));
        outbox.event("t2", text("x"));
        outbox.event("t2", Event::Reasoning { delta: "r".into() });
        outbox.send("approval").unwrap();
        outbox.event("t2", text("after"));
        drop(outbox);
        for _ in 0..100 {
            if log.0.lock().unwrap().len() == 5 {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert_eq!(
            *log.0.lock().unwrap(),
            vec![
                "t1 text Hello",
                "t2 text x",
                "t2 reasoning r",
                "other approval",
                "t2 text after"
            ]
        );
    }
}
