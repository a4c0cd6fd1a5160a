//! TEMPORARY stand-in for `tandem tool` (being written on the tools branch).
#[derive(clap::Args, Debug)]
pub struct ToolArgs {
    pub name: String,
}
pub fn run(_args: ToolArgs) -> i32 {
    unimplemented!()
}
