"""Reading a whole tree for a full build: ``scan_file`` inlined into one loop.

A build reads tens of thousands of files of a few KB each, so what costs is not
bytes but the Python work per file: a dozen function calls and objects each
(``scan_file``, ``_read``, ``Scanned``, ``RepoIndex.put``...) added about 40 % to
the system calls themselves. This loop does the same checks for the usual case
(a regular file, readable, within the size limit) in one loop, and collects
plain lists that ``RepoIndex.load`` takes in bulk. Anything unusual
(a symlink, a special file, an error) goes through ``scan_file``, the reference
behaviour; tests compare the two on the same trees.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from agentls.indexer.index import FileInfo
from agentls.indexer.languages import language_of, split_ext
from agentls.indexer.walker import (
    BINARY,
    BINARY_SNIFF_BYTES,
    TOO_LARGE,
    Scanned,
    line_count,
    scan_file,
)

#: Up to this size a file is read in one call, binary or not (a larger binary would
#: cost more to read whole than a separate read of its head).
WHOLE_READ_MAX = 1024 * 1024
_S_IFMT = 0o170000
_S_IFREG = 0o100000


@dataclass
class TreeScan:
    """Indexed files (in the order given), their bytes if kept, and every other outcome."""

    infos: list[FileInfo] = field(default_factory=list)
    datas: list[bytes] = field(default_factory=list)
    others: list[Scanned] = field(default_factory=list)


def scan_tree(real_root: str, paths: list[str], max_file_size: int, keep_data: bool) -> TreeScan:
    out = TreeScan()
    infos, datas, others = out.infos, out.datas, out.others
    add_info, add_data, add_other = infos.append, datas.append, others.append
    open_, fstat, read, close = os.open, os.fstat, os.read, os.close
    # O_NOFOLLOW: a link fails to open (ELOOP) and takes the careful path, which
    # checks where it leads. O_NONBLOCK: opening a FIFO must not wait for a writer.
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    sniff = BINARY_SNIFF_BYTES
    prefix = real_root + "/"
    for rel in paths:
        full = prefix + rel
        try:
            # open + fstat rather than lstat + open: the path is resolved once.
            fd = open_(full, flags)
        except OSError:
            add_other(scan_file(real_root, rel, max_file_size))  # links, errors
            continue
        try:
            st = fstat(fd)
            if st.st_mode & _S_IFMT != _S_IFREG:
                add_other(scan_file(real_root, rel, max_file_size))  # specials
                continue
            size = st.st_size
            if size > max_file_size:
                add_other(Scanned(rel, skipped=TOO_LARGE))
                continue
            if size <= WHOLE_READ_MAX:
                # One read (one more byte than the size: a file that grew takes the
                # careful path); the binary sniff looks at the head in place.
                data = read(fd, size + 1)
                binary = data.find(b"\x00", 0, sniff) >= 0
            else:  # a large file may be a binary: its head decides before the rest
                data = read(fd, sniff)
                binary = b"\x00" in data
                if not binary:
                    data += read(fd, size - len(data) + 1)
        except OSError:
            add_other(scan_file(real_root, rel, max_file_size))  # classifies the error
            continue
        finally:
            close(fd)
        if binary:
            add_other(Scanned(rel, skipped=BINARY))
            continue
        if len(data) > size or (size and not data):  # changed while read
            add_other(scan_file(real_root, rel, max_file_size))
            continue
        name = rel[rel.rfind("/") + 1 :]
        ext = split_ext(name)
        info = FileInfo(
            rel, len(data), ext, language_of(name, ext), line_count(data), st.st_mtime_ns
        )
        add_info(info)
        if keep_data:
            add_data(data)
    return out
