//! The dependencies of the shop card: built once, by the code that builds
//! the agent (`Shop::new(&deps)`), and shared by every session it serves.

use std::collections::BTreeMap;
use std::sync::Arc;

/// What the shop's tools are built from.
#[derive(Clone, Debug)]
pub struct ShopDeps {
    /// The shop's name.
    pub name: String,
    /// What is in stock.
    pub inventory: Inventory,
}

/// Stock levels by item, shared by every tool that asks for them.
#[derive(Clone, Debug, Default)]
pub struct Inventory(pub Arc<BTreeMap<String, u32>>);

impl hookwire::deps::FromRef<ShopDeps> for Inventory {
    fn from_ref(deps: &ShopDeps) -> Self {
        deps.inventory.clone()
    }
}
