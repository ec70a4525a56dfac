//! The baseline of the chain bench: a vector of boxed hooks with boxed
//! futures, as the Rust peers build it.

use std::future::Future;
use std::hint::black_box;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use hookwire::{Outcome, Tool, ToolArgs, ToolContext};

use super::chain_fixtures::{AddOne, AddOneArgs};
use super::layers::bump;

type BoxFuture<'a> = Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>;

pub(super) trait DynHook: Send + Sync {
    fn around<'a>(
        &'a self,
        cx: &'a mut ToolContext,
        args: ToolArgs,
        next: DynNext<'a>,
    ) -> BoxFuture<'a>;
}

pub(super) trait DynTool: Send + Sync {
    fn call<'a>(&'a self, cx: &'a mut ToolContext, args: ToolArgs) -> BoxFuture<'a>;
}

#[derive(Clone, Copy)]
pub(super) struct DynNext<'a> {
    hooks: &'a [Arc<dyn DynHook>],
    tool: &'a dyn DynTool,
}

impl<'a> DynNext<'a> {
    fn run(self, cx: &'a mut ToolContext, args: ToolArgs) -> BoxFuture<'a> {
        match self.hooks.split_first() {
            Some((hook, rest)) => hook.around(
                cx,
                args,
                DynNext {
                    hooks: rest,
                    tool: self.tool,
                },
            ),
            None => self.tool.call(cx, args),
        }
    }
}

#[derive(Default)]
pub(super) struct DynCount(AtomicU64);

impl DynHook for DynCount {
    fn around<'a>(
        &'a self,
        cx: &'a mut ToolContext,
        args: ToolArgs,
        next: DynNext<'a>,
    ) -> BoxFuture<'a> {
        Box::pin(async move {
            bump(&self.0);
            let outcome = next.run(cx, args).await;
            bump(&self.0);
            outcome
        })
    }
}

pub(super) struct DynTyped(pub(super) AddOne);

impl DynTool for DynTyped {
    fn call<'a>(&'a self, cx: &'a mut ToolContext, args: ToolArgs) -> BoxFuture<'a> {
        drop(args);
        Box::pin(self.0.call(cx, AddOneArgs { x: black_box(41) }))
    }
}

pub(super) struct BoxedChain {
    pub(super) hooks: Vec<Arc<dyn DynHook>>,
    pub(super) tool: Arc<dyn DynTool>,
}

impl BoxedChain {
    pub(super) fn call<'a>(&'a self, cx: &'a mut ToolContext, args: ToolArgs) -> BoxFuture<'a> {
        DynNext {
            hooks: &self.hooks,
            tool: &*self.tool,
        }
        .run(cx, args)
    }
}
