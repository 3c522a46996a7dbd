//! Typed PCI attributes, as lspci and sysfs name them: a function's address
//! (`0000:3b:00.0`), its vendor:device ids (`8086:2030`), its 24-bit class code
//! (`0x010802`) and the root bus it hangs from (`0000:17`). Each prints and serialises as
//! that text; code compares the values, never the text.

use serde::Serialize;
use std::fmt;

/// A PCI address `dddd:bb:dd.f`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
pub struct Bdf {
    pub domain: u32,
    pub bus: u8,
    pub dev: u8,
    pub func: u8,
}

impl Bdf {
    /// Parses `0000:3b:00.0` or `3b:00.0` (domain 0).
    pub fn parse(s: &str) -> Option<Bdf> {
        let s = s.trim();
        let (domain, rest) = match s.matches(':').count() {
            2 => {
                let (d, r) = s.split_once(':')?;
                if d.is_empty() || d.len() > 8 {
                    return None;
                }
                (u32::from_str_radix(d, 16).ok()?, r)
            }
            1 => (0, s),
            _ => return None,
        };
        let (bus, df) = rest.split_once(':')?;
        let (dev, func) = df.split_once('.')?;
        if bus.len() != 2 || dev.len() != 2 || func.len() != 1 {
            return None;
        }
        let bus = u8::from_str_radix(bus, 16).ok()?;
        let dev = u8::from_str_radix(dev, 16).ok()?;
        let func = u8::from_str_radix(func, 16).ok()?;
        if dev > 0x1f || func > 7 {
            return None;
        }
        Some(Bdf {
            domain,
            bus,
            dev,
            func,
        })
    }

    /// `3b:00.0`
    pub fn short(&self) -> String {
        format!("{:02x}:{:02x}.{:x}", self.bus, self.dev, self.func)
    }

    /// `00.0` (the part lspci -t prints).
    pub fn devfn(&self) -> String {
        format!("{:02x}.{:x}", self.dev, self.func)
    }

    /// (domain, bus, device): the unit a physical slot or a link belongs to.
    pub fn device_key(&self) -> (u32, u8, u8) {
        (self.domain, self.bus, self.dev)
    }
}

impl Bdf {
    /// Whether the address lies under a locator: an address prefix as a platform file
    /// writes it (`0000:17` a root bus, `0000:00:03.1` one port), compared on the
    /// canonical text `dddd:bb:dd.f`.
    pub fn under(&self, locator: &str) -> bool {
        // The text on the stack: this runs per function and locator in the diff.
        let mut buf = [0u8; 24];
        let len = {
            let mut w = &mut buf[..];
            let _ = std::io::Write::write_fmt(&mut w, format_args!("{self}"));
            24 - w.len()
        };
        buf[..len].starts_with(locator.as_bytes())
    }
}

impl fmt::Display for Bdf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.dev, self.func
        )
    }
}

/// Serializes an optional [`Bdf`] as its text (`0000:3b:00.0`), for JSON fields that name one.
pub fn ser_opt_bdf<S: serde::Serializer>(b: &Option<Bdf>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(b) => s.serialize_str(&b.to_string()),
        None => s.serialize_none(),
    }
}

/// Serializes a [`Bdf`] as its text (`0000:3b:00.0`).
pub fn ser_bdf<S: serde::Serializer>(b: &Bdf, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(b)
}

/// A vendor:device pair of PCI ids (`8086:2030`), or a subsystem's (`1028:1f53`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciIds {
    pub vendor: u16,
    pub device: u16,
}

impl PciIds {
    /// Both ids, when the source gave both.
    pub fn of(vendor: Option<u16>, device: Option<u16>) -> Option<PciIds> {
        Some(PciIds {
            vendor: vendor?,
            device: device?,
        })
    }
}

impl PciIds {
    /// Parses `8086:2030` (hex, either case).
    pub fn parse(s: &str) -> Option<PciIds> {
        let (v, d) = s.trim().split_once(':')?;
        if v.len() != 4 || d.len() != 4 {
            return None;
        }
        Some(PciIds {
            vendor: u16::from_str_radix(v, 16).ok()?,
            device: u16::from_str_radix(d, 16).ok()?,
        })
    }

    /// Whether ids a file lists (`8086:2030`, either case) are these (never when the
    /// source lacks them).
    pub fn is_listed(listed: &str, ids: Option<PciIds>) -> bool {
        ids.is_some() && PciIds::parse(listed) == ids
    }

    /// The ids as lspci prints them, `????:????` when the source lacks them.
    pub fn text(ids: Option<PciIds>) -> String {
        ids.map_or_else(|| "????:????".to_string(), |i| i.to_string())
    }
}

impl fmt::Display for PciIds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04x}:{:04x}", self.vendor, self.device)
    }
}

/// Serializes a function's ids, `????:????` when the source lacks one (as lspci prints).
pub fn ser_ids<S: serde::Serializer>(ids: &Option<PciIds>, s: S) -> Result<S::Ok, S::Error> {
    match ids {
        Some(i) => s.collect_str(i),
        None => s.serialize_str("????:????"),
    }
}

/// A 24-bit PCI class code: base class, subclass, programming interface (`0x010802`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClassCode(pub u32);

impl ClassCode {
    /// The base class (`0x01` mass storage, `0x06` bridge).
    pub const fn base(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// Base class and subclass (`0x0108` NVM controller, `0x0600` host bridge).
    pub const fn base_sub(self) -> u16 {
        (self.0 >> 8) as u16
    }
}

impl fmt::Display for ClassCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:06x}", self.0)
    }
}

/// A root bus, `0000:17`: the domain and bus a host bridge opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RootBus {
    pub domain: u32,
    pub bus: u8,
}

impl RootBus {
    /// The root bus a function's address is on.
    pub const fn of(b: Bdf) -> RootBus {
        RootBus {
            domain: b.domain,
            bus: b.bus,
        }
    }
}

impl fmt::Display for RootBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04x}:{:02x}", self.domain, self.bus)
    }
}

/// Each serialises as the text it prints (`8086:2030`, `0x010802`, `0000:17`).
macro_rules! serialize_as_text {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
serialize_as_text!(PciIds, ClassCode, RootBus);

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bdf {
        Bdf::parse(s).expect("an address")
    }

    #[test]
    fn under_matches_the_locator_prefixes_platform_files_write() {
        let x = b("0000:3b:00.0");
        assert!(x.under("0000:3b"));
        assert!(x.under("0000:3b:00.0"));
        assert!(x.under("0000:3b:00"));
        assert!(!x.under("0000:3a"));
        assert!(!x.under("0000:3b:00.1"));
        assert!(!x.under("0000:3b:00.0.1"));
        // An eight-digit domain (VMD) prints in full and still matches.
        assert!(b("10000:e1:00.0").under("10000:e1"));
        assert!(!b("10000:e1:00.0").under("0000:e1"));
    }

    #[test]
    fn ids_and_classes_read_and_print_as_lspci_writes_them() {
        assert_eq!(
            PciIds::parse("10B5:9797"),
            Some(PciIds {
                vendor: 0x10b5,
                device: 0x9797
            })
        );
        assert_eq!(PciIds::parse("10b5:979"), None);
        assert!(PciIds::is_listed("8086:2030", PciIds::parse("8086:2030")));
        assert!(!PciIds::is_listed("????:????", None));
        assert_eq!(PciIds::text(None), "????:????");
        let c = ClassCode(0x010802);
        assert_eq!(
            (c.base(), c.base_sub(), c.to_string()),
            (0x01, 0x0108, "0x010802".into())
        );
        assert_eq!(
            serde_json::to_string(&RootBus::of(b("0000:17:00.0"))).unwrap(),
            "\"0000:17\""
        );
    }
}
