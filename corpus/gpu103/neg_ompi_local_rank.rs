// silent: Open MPI's rank on the node is a valid ordinal here
use cust::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    cust::init(CudaFlags::empty())?;
    let local: u32 = std::env::var("OMPI_COMM_WORLD_LOCAL_RANK")?.parse()?;
    let device = Device::get_device(local)?;
    let _ctx = Context::new(device)?;
    Ok(())
}
