//! The kernels' layout contracts (`cute_rs_kernels::contracts`): the device build evaluates them
//! at compile time; the host build of the kernels leaves them to this test, which runs each one.

#[test]
fn every_kernel_contract_holds() {
    let contracts: Vec<(&str, fn())> = cute_rs_kernels::contracts().collect();
    // The Hopper modules' contracts: four of the GEMMs', O's staging and ten attention configurations.
    assert!(contracts.len() >= 15, "only {} contracts listed", contracts.len());
    let failed: Vec<String> = contracts
        .iter()
        .filter_map(|(name, check)| {
            std::panic::catch_unwind(check).err().map(|e| {
                let why = e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned());
                format!("{name}: {}", why.unwrap_or_default())
            })
        })
        .collect();
    assert!(failed.is_empty(), "contracts that do not hold:\n{}", failed.join("\n"));
    println!("{} kernel contracts hold", contracts.len());
}
