//! Device identity shared by the doubles: CUDA reports the UUID bytes, NVML the UUID string,
//! NCCL compares UUIDs across processes. All derive from the physical index here.

/// "gpudouble" then zeros; the last four bytes hold the physical index.
const PREFIX: [u8; 12] = *b"gpudouble\0\0\0";

pub fn uuid_bytes(physical: u32) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    bytes[..12].copy_from_slice(&PREFIX);
    bytes[12..].copy_from_slice(&physical.to_be_bytes());
    bytes
}

/// NVML's form: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", lowercase hex.
pub fn uuid_string(physical: u32) -> String {
    format_uuid(&uuid_bytes(physical))
}

pub fn format_uuid(bytes: &[u8; 16]) -> String {
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The physical index a UUID belongs to, if it is one of ours.
pub fn physical_of(bytes: &[u8; 16]) -> Option<u32> {
    (bytes[..12] == PREFIX)
        .then(|| u32::from_be_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]))
}

/// NCCL's `busId` for the device (the PCI id "0000:BB:00.0" read as hex, so bus BB gives
/// 0xBB000). The doubles put physical device p on PCI bus p+1.
pub fn pci_bus_id(physical: u32) -> i64 {
    (i64::from(physical) + 1) << 12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_forms_agree() {
        assert_eq!(uuid_string(0), "GPU-67707564-6f75-626c-6500-000000000000");
        assert_eq!(uuid_string(3), "GPU-67707564-6f75-626c-6500-000000000003");
        assert_ne!(uuid_bytes(1), uuid_bytes(2));
        assert_eq!(physical_of(&uuid_bytes(7)), Some(7));
        assert_eq!(physical_of(&[0u8; 16]), None);
        assert_eq!(format!("{:x}", pci_bus_id(0)), "1000");
    }
}
