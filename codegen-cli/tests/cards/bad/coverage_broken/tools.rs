/// Pays.
#[hookwire::tool(meta(risk = "high"))]
pub fn pay(amount: u32) -> String {
    format!("paid {amount}")
}

/// Refunds.
#[hookwire::tool(needs_approval, meta(risk = "high"))]
pub fn refund(amount: u32) -> String {
    format!("refunded {amount}")
}

/// Reads.
pub fn read(key: String) -> String {
    key
}
