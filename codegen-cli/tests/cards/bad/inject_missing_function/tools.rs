/// Lists the orders.
pub fn list_orders() -> String {
    String::new()
}
