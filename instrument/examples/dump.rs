//! Prints the site table and facts of the files given on the command line
//! (root: the current directory), for looking at what the analysis sees.

fn main() {
    let flags = instrument::mpi_flags("mpicc.mpich").expect("mpicc");
    let units: Vec<_> = std::env::args()
        .skip(1)
        .map(|p| (std::path::PathBuf::from(p), flags.clone()))
        .collect();
    let a = instrument::analyze(std::path::Path::new("."), &units).expect("analyze");
    for s in &a.sites.sites {
        println!("{s:?}");
    }
    println!("{:#?}", a.facts);
    println!("{:?}", a.units);
    for (f, _) in &a.files {
        println!("file {}", f.display());
    }
}
