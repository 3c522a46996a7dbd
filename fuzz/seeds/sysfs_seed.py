#!/usr/bin/env python3
"""Converts a real sysfs capture (a tar archive, any compression) into the text form of
laneplan::treetext, the input of the sysfs_tree fuzz target: its PCI, NVMe, block and DMI
entries, files of at most 4 KiB. Usage: sysfs_seed.py CAPTURE.tar.xz > SEED"""
import sys
import tarfile

KEEP = ("sys/bus/pci", "sys/devices/pci", "sys/class/nvme", "sys/class/block",
        "sys/block", "sys/class/dmi", "sys/devices/virtual/dmi", "sys/bus/pci_express",
        "sys/devices/system/node", "sys/class/pci_bus")


def esc(b: bytes) -> str:
    out = []
    for c in b:
        if c == 0x0a:
            out.append("\\n")
        elif c == 0x5c:
            out.append("\\\\")
        elif 0x20 <= c < 0x7f:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)


def main() -> None:
    with tarfile.open(sys.argv[1]) as t:
        for m in t.getmembers():
            name = m.name.lstrip("./")
            i = name.find("sys/")
            if i < 0:
                continue
            name = name[i:]
            if not name.startswith(KEEP) or " " in name:
                continue
            if m.isdir():
                print("d " + name)
            elif m.issym():
                print("l %s %s" % (name, m.linkname))
            elif m.isfile() and m.size <= 4096:
                print("f %s %s" % (name, esc(t.extractfile(m).read())))


main()
