//! Bounded reads and what a file is: the read limits per kind of input, the reader of a file
//! named on the command line, and the words for a file that is not a regular file. A leaf
//! module (std, libc and rustix only): the host readers, `input`, `outfile` and `learn` use it.

use std::path::Path;

/// Why an I/O call failed, in words (`missing`, `permission denied`, `symlink loop`).
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "missing".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            // ELOOP has no stable ErrorKind: name it ourselves.
            if e.raw_os_error() == Some(40) {
                "symlink loop".to_string()
            } else {
                e.to_string()
            }
        }
    }
}

/// Largest sysfs attribute read (a page is 4 KiB; `resource` and friends stay far below).
pub const ATTR_CAP: u64 = 64 << 10;
/// Largest `config` read: PCIe extended configuration space is 4 KiB.
pub const CONFIG_CAP: u64 = 4 << 10;
/// Largest `/proc` table read (`/proc/mounts` of a host with thousands of mounts).
pub const PROC_CAP: u64 = 16 << 20;
/// Largest `pci.ids` read (the full database is about 1.5 MiB).
pub const PCI_IDS_CAP: u64 = 64 << 20;
/// Largest `lspci -vvnn` dump read (a 2,000-function host prints about 5 MiB).
pub const LSPCI_CAP: u64 = 256 << 20;

/// `64 KiB`, `256 MiB`.
pub fn human(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// What a file that is not a regular file is, for messages (`None` for a regular file).
pub fn odd_kind(ft: &std::fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_file() {
        None
    } else if ft.is_dir() {
        Some("a directory")
    } else if ft.is_fifo() {
        Some("a FIFO")
    } else if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_symlink() {
        Some("a symlink")
    } else {
        Some("not a regular file")
    }
}

/// Reads a file named on the command line (`--lspci`, `--pci-ids`), at most `cap` bytes.
///
/// Symlinks are followed (the user named the path). A regular file is read; a FIFO or pipe
/// (`--lspci <(ssh host lspci -vvnn)`) is opened without blocking, so a FIFO nobody writes
/// reads as empty instead of hanging, then read to its end; a directory, device node or
/// socket is refused without being opened. The error says why, without the path.
pub fn read_input(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let meta = std::fs::metadata(path).map_err(|e| io_reason(&e))?;
    let ft = meta.file_type();
    let pipe = ft.is_fifo();
    if !pipe && let Some(kind) = odd_kind(&ft) {
        return Err(format!("is {kind}, not a file"));
    }
    if !pipe && meta.len() > cap {
        return Err(format!(
            "is {} bytes, more than the {} this input may be",
            meta.len(),
            human(cap)
        ));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| io_reason(&e))?;
    if pipe {
        // Opened without waiting for a writer; now wait for data like `cat` would (a pipe
        // with no writer reads as end of file at once).
        let fl = rustix::fs::fcntl_getfl(&f).map_err(|e| e.to_string())?;
        rustix::fs::fcntl_setfl(&f, fl - rustix::fs::OFlags::NONBLOCK)
            .map_err(|e| e.to_string())?;
    }
    let mut buf = Vec::new();
    f.take(cap + 1)
        .read_to_end(&mut buf)
        .map_err(|e| io_reason(&e))?;
    if buf.len() as u64 > cap {
        return Err(format!("is more than the {} this input may be", human(cap)));
    }
    Ok(buf)
}
