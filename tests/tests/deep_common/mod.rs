//! Hooks for the deep-chain tests: each tags the result with its number.

/// Declares `#[hookwire::hook]`s named `$name`, each appending ` $n` to the
/// result.
macro_rules! tag_hooks {
    ($($name:ident = $n:literal),* $(,)?) => {$(
        #[doc = concat!("Tags results with `", $n, "`.")]
        #[hookwire::hook]
        async fn $name(
            cx: &mut hookwire::ToolContext,
            args: hookwire::ToolArgs,
            next: hookwire::Next,
        ) -> hookwire::Outcome {
            let mut outcome = next.run(cx, args).await;
            if let Ok(r) = &mut outcome {
                r.append_text(concat!(" ", $n));
            }
            outcome
        }
    )*};
}
pub(crate) use tag_hooks;
