# SPDX-License-Identifier: BSD-3-Clause
"""Read a running dpdk-ibvcap's antenna rings from Python: libibvcap's
time-aligned blocks as numpy arrays, without copying.

    import ibvcap

    with ibvcap.open("askap0", "pybeam") as cap:
        cap.select(range(6), frames=64)
        for blk in cap.blocks(timeout=1.0):
            for k, ant in enumerate(blk.ants):
                for s in range(blk.nstreams(k)):
                    ok = blk.valid(k, s)          # bool[frames]
                    x = blk.decode(k, s, 0)       # float32 or complex64 [samples, nchan]
            blk.check()                           # frames overwritten while read

A block's arrays are views of the capture's ring: valid until the next
block is taken (or the loop ends), when the block is released. The C
library does everything (docs/consumer.md, ibvcap(3)); this module is a
ctypes binding over libibvcap.so.1 ($IBVCAP_LIB names another file).
Decoding is the library's (ibvcap_decode: lib/codif's codif_signal, the one
owner of what the bytes mean).
"""
import ctypes
import errno
import os

import numpy as np

__all__ = ["open", "Capture", "Block", "IbvcapError", "OPEN_OLDEST", "OPEN_SCANS"]

OPEN_OLDEST, OPEN_SCANS = 0x1, 0x4
BLOCK_OVERRUN, BLOCK_PARTIAL, BLOCK_FIRST = 0x1, 0x2, 0x4


class _Antenna(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 32), ("src_ip", ctypes.c_uint32),
                ("max_streams", ctypes.c_uint32), ("streams", ctypes.c_uint32),
                ("slot_bytes", ctypes.c_uint32), ("ring_frames", ctypes.c_uint32),
                ("window", ctypes.c_uint32)]


class _Stream(ctypes.Structure):
    _fields_ = [("dst_ip", ctypes.c_uint32), ("dport", ctypes.c_uint16),
                ("stationid", ctypes.c_uint16), ("groupid", ctypes.c_uint16),
                ("secondaryid", ctypes.c_uint16), ("threadid", ctypes.c_uint16),
                ("nchan", ctypes.c_uint16), ("nbits", ctypes.c_uint8),
                ("complex", ctypes.c_uint8), ("started", ctypes.c_uint8),
                ("pad", ctypes.c_uint8), ("data_bytes", ctypes.c_uint32),
                ("samples", ctypes.c_uint64), ("frame_ns_num", ctypes.c_uint64),
                ("frame_ns_den", ctypes.c_uint64)]


class _View(ctypes.Structure):
    _fields_ = [("frame", ctypes.POINTER(ctypes.c_void_p)), ("data", ctypes.c_void_p),
                ("stride", ctypes.c_size_t), ("valid", ctypes.POINTER(ctypes.c_uint64)),
                ("flagged", ctypes.POINTER(ctypes.c_uint64)),
                ("data_bytes", ctypes.c_uint32), ("nvalid", ctypes.c_uint32),
                ("samples", ctypes.c_uint32), ("nchan", ctypes.c_uint16),
                ("nbits", ctypes.c_uint8), ("complex", ctypes.c_uint8),
                ("arrival_ns", ctypes.POINTER(ctypes.c_int64))]


class _Block(ctypes.Structure):
    _fields_ = [("index", ctypes.c_int64), ("time_ns", ctypes.c_int64),
                ("frames", ctypes.c_uint32), ("nants", ctypes.c_uint32),
                ("flags", ctypes.c_uint32), ("scan", ctypes.c_uint32),
                ("seq", ctypes.c_uint64), ("overrun", ctypes.c_uint64),
                ("ant", ctypes.POINTER(ctypes.c_uint32)),
                ("nstreams", ctypes.POINTER(ctypes.c_uint32)),
                ("view", ctypes.POINTER(ctypes.POINTER(_View)))]


class _Stats(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in
                ("blocks", "frames", "invalid", "overrun", "torn", "torn_blocks", "skipped",
                 "bytes", "outside")]


def _load():
    lib = ctypes.CDLL(os.environ.get("IBVCAP_LIB", "libibvcap.so.1"), use_errno=True)
    P, u32, u64, i64 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int64
    sig = {
        "ibvcap_open": (P, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint,
                            ctypes.c_char_p, ctypes.c_size_t]),
        "ibvcap_close": (None, [P]),
        "ibvcap_antennas": (ctypes.c_uint, [P]),
        "ibvcap_antenna_info": (ctypes.c_int, [P, ctypes.c_uint, ctypes.POINTER(_Antenna)]),
        "ibvcap_stream_info": (ctypes.c_int, [P, ctypes.c_uint, ctypes.c_uint,
                                              ctypes.POINTER(_Stream)]),
        "ibvcap_select": (ctypes.c_int, [P, u64, u32, ctypes.c_char_p, ctypes.c_size_t]),
        "ibvcap_acquire": (ctypes.c_int, [P, ctypes.POINTER(ctypes.POINTER(_Block)),
                                          ctypes.c_int]),
        "ibvcap_check": (ctypes.c_int, [P, ctypes.POINTER(_Block)]),
        "ibvcap_release": (ctypes.c_int, [P, ctypes.POINTER(_Block)]),
        "ibvcap_get_stats": (None, [P, ctypes.POINTER(_Stats)]),
        "ibvcap_frame_time_ns": (i64, [P, ctypes.POINTER(_Block), u32]),
        "ibvcap_decode": (ctypes.c_int, [P, ctypes.POINTER(_Block), u32, u32, u32,
                                         ctypes.POINTER(ctypes.c_float), ctypes.c_size_t]),
        "ibvcap_version": (ctypes.c_char_p, []),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


_lib = None


def _l():
    global _lib
    if _lib is None:
        _lib = _load()
    return _lib


class IbvcapError(OSError):
    """A libibvcap call failed: errno and the library's message."""


def _ip(v):
    return "%d.%d.%d.%d" % (v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255)


class Block:
    """A held block: frame indexes [index, index + frames) of every chosen
    antenna. Its arrays are views of the ring until it is released."""

    def __init__(self, cap, ptr):
        self._cap, self._p, b = cap, ptr, ptr.contents
        self.index, self.time_ns, self.frames = b.index, b.time_ns, b.frames
        self.flags, self.seq, self.overrun, self.scan = b.flags, b.seq, b.overrun, b.scan
        self.ants = [b.ant[k] for k in range(b.nants)]
        self._ns = [b.nstreams[k] for k in range(b.nants)]
        self._views = b.view
        self.released = False

    def _v(self, k, s):
        if self.released:
            raise IbvcapError(errno.EINVAL, "the block was released: its views are gone")
        if not (0 <= k < len(self.ants) and 0 <= s < self._ns[k]):
            raise IndexError("view (%d, %d): %d antennas" % (k, s, len(self.ants)))
        return self._views[k][s]

    def nstreams(self, k):
        return self._ns[k]

    def params(self, k, s):
        """The stream's parameters in this block (data_bytes 0: not started)."""
        v = self._v(k, s)
        return {"data_bytes": v.data_bytes, "samples": v.samples, "nchan": v.nchan,
                "nbits": v.nbits, "complex": bool(v.complex), "nvalid": v.nvalid}

    def _bits(self, ptr):
        w = np.ctypeslib.as_array(ptr, shape=((self.frames + 63) // 64,))
        return np.unpackbits(w.view(np.uint8), bitorder="little")[:self.frames].astype(bool)

    def valid(self, k, s):
        """bool[frames]: frame i arrived (its bytes are as sent)."""
        return self._bits(self._v(k, s).valid)

    def flagged(self, k, s):
        """bool[frames]: ... with its CODIF invalid bit set."""
        return self._bits(self._v(k, s).flagged)

    def arrival_ns(self, k, s):
        """int64[frames]: when each valid frame arrived (Unix ns; 0: not
        valid). A view of the library's array until release."""
        return np.ctypeslib.as_array(self._v(k, s).arrival_ns, shape=(self.frames,))

    def frame(self, k, s, i):
        """uint8[data_bytes]: frame i's data in the ring (no copy)."""
        v = self._v(k, s)
        if not 0 <= i < self.frames:
            raise IndexError("frame %d of %d" % (i, self.frames))
        buf = (ctypes.c_uint8 * v.data_bytes).from_address(v.frame[i])
        return np.frombuffer(buf, dtype=np.uint8)

    def data(self, k, s):
        """uint8[frames, data_bytes] over the ring (no copy) when its frames
        are evenly spaced there (copy mode, no wrap inside the block); else
        None: take frame() one by one."""
        v = self._v(k, s)
        if not v.stride or not v.data:
            return None
        span = (self.frames - 1) * v.stride + v.data_bytes
        flat = np.frombuffer((ctypes.c_uint8 * span).from_address(v.data), dtype=np.uint8)
        return np.lib.stride_tricks.as_strided(flat, shape=(self.frames, v.data_bytes),
                                               strides=(v.stride, 1), writeable=False)

    def decode(self, k, s, i):
        """Frame i's samples: float32[samples, nchan] (real) or
        complex64[samples, nchan], in steps of the stream's encoding."""
        v = self._v(k, s)
        ncomp = 2 if v.complex else 1
        out = np.empty(v.samples * v.nchan * ncomp, dtype=np.float32)
        rc = _l().ibvcap_decode(self._cap._h, self._p, k, s, i,
                                out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), out.size)
        if rc < 0:
            raise IbvcapError(-rc, "decode (%d, %d, %d): %s" % (k, s, i, os.strerror(-rc)))
        if v.complex:
            return out.view(np.complex64).reshape(v.samples, v.nchan)
        return out.reshape(v.samples, v.nchan)

    def frame_time_ns(self, i):
        return _l().ibvcap_frame_time_ns(self._cap._h, self._p, i)

    def check(self):
        """After reading: valid frames the ring overwrote meanwhile (their
        valid bits are cleared; what is still valid was read intact)."""
        return _l().ibvcap_check(self._cap._h, self._p)

    def release(self):
        if self.released:
            return 0
        self.released = True
        return _l().ibvcap_release(self._cap._h, self._p)


class Capture:
    """A running capture, opened under a consumer name (ibvcap_open)."""

    def __init__(self, instance, name, oldest=False, scans=False):
        err = ctypes.create_string_buffer(512)
        flags = (OPEN_OLDEST if oldest else 0) | (OPEN_SCANS if scans else 0)
        self._h = _l().ibvcap_open(instance.encode(), name.encode(), flags, err, len(err))
        if not self._h:
            raise IbvcapError(ctypes.get_errno() or errno.EIO, err.value.decode())
        self._held = None

    def close(self):
        if self._h:
            if self._held is not None:
                self._held.release()
            _l().ibvcap_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def antennas(self):
        out = []
        for a in range(_l().ibvcap_antennas(self._h)):
            x = _Antenna()
            _l().ibvcap_antenna_info(self._h, a, ctypes.byref(x))
            out.append({"name": x.name.decode(), "src": _ip(x.src_ip),
                        "max_streams": x.max_streams, "streams": x.streams,
                        "slot_bytes": x.slot_bytes, "ring_frames": x.ring_frames,
                        "window": x.window})
        return out

    def stream(self, a, s):
        x = _Stream()
        rc = _l().ibvcap_stream_info(self._h, a, s, ctypes.byref(x))
        if rc < 0:
            raise IbvcapError(-rc, "stream (%d, %d): %s" % (a, s, os.strerror(-rc)))
        return {f: getattr(x, f) for f, _ in _Stream._fields_ if f != "pad"} | \
            {"dst": _ip(x.dst_ip)}

    def select(self, ants, frames):
        err = ctypes.create_string_buffer(512)
        mask = sum(1 << a for a in ants)
        rc = _l().ibvcap_select(self._h, mask, frames, err, len(err))
        if rc < 0:
            raise IbvcapError(-rc, err.value.decode())

    def acquire(self, timeout=-1.0):
        """The next block, or None when none came within timeout seconds
        (0: poll; < 0: wait). Raises StopIteration at the capture's end."""
        if self._held is not None:
            self._held.release()
            self._held = None
        p = ctypes.POINTER(_Block)()
        ms = -1 if timeout < 0 else int(timeout * 1000)
        rc = _l().ibvcap_acquire(self._h, ctypes.byref(p), ms)
        if rc == -errno.EAGAIN:
            return None
        if rc == -errno.ENODATA:
            raise StopIteration
        if rc < 0:
            raise IbvcapError(-rc, "acquire: %s" % os.strerror(-rc))
        self._held = Block(self, p)
        return self._held

    def blocks(self, timeout=1.0):
        """Every block until the capture stops, each released when the next
        is taken."""
        while True:
            try:
                b = self.acquire(timeout)
            except StopIteration:
                return
            if b is not None:
                yield b

    def stats(self):
        x = _Stats()
        _l().ibvcap_get_stats(self._h, ctypes.byref(x))
        return {f: getattr(x, f) for f, _ in _Stats._fields_}


def open(instance, name, oldest=False, scans=False):  # noqa: A001 (the module's verb)
    """A Capture: ibvcap_open(instance, name); oldest: from the oldest
    frames the rings hold; scans: only the frames of this consumer's scans."""
    return Capture(instance, name, oldest, scans)


def version():
    return _l().ibvcap_version().decode()
