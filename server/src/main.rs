fn main() {
    println!("tandem {}", env!("CARGO_PKG_VERSION"));
}
