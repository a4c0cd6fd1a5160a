fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Minimal dispatch until the lead's CLI lands: `tandem tool ...`.
    if args.first().map(String::as_str) == Some("tool") {
        std::process::exit(tandem::tool_cli::main(&args[1..]));
    }
    println!("tandem {}", env!("CARGO_PKG_VERSION"));
}
