#!/usr/bin/env bash
# tests/fuzz/make_seeds.sh — regenerates the checked-in seed corpora
# (tests/fuzz/corpus/<harness>/). Seeds are small and each shows one case;
# the fuzzer's own discoveries stay in build/fuzz/corpus, not here.
# Seeds are printf formats in single quotes: $ and \ are RESP, not shell.
# shellcheck disable=SC2016,SC2059,SC1003
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# seed HARNESS NAME PRINTF-FORMAT: writes one seed file.
seed() {
    mkdir -p "$here/corpus/$1"
    printf "$3" >"$here/corpus/$1/$2"
}

# fuzz_resp_parser: 3 control bytes (limits, split seed, largest chunk), then
# the client's bytes. \x00\x01\xff = no auth limits, chunks up to 256 bytes;
# \x01 = unauthenticated; \x00\x07\x00 = split byte by byte.
h=fuzz_resp_parser
seed $h ping-multibulk '\x00\x01\xff*1\r\n$4\r\nPING\r\n'
seed $h set-get-pipeline '\x00\x05\x07*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'
seed $h byte-by-byte '\x00\x07\x00*2\r\n$4\r\nECHO\r\n$11\r\nhello\r\nworld\r\n'
seed $h inline-ping '\x00\x01\xffPING\r\n'
seed $h inline-quotes '\x00\x02\x03SET "a b\\x41\\n" '"'"'it\\'"'"'s'"'"'\r\n'
seed $h inline-unbalanced '\x00\x01\xffSET "abc\r\n'
seed $h inline-bad-closing-quote '\x00\x01\xffGET "a"b\r\n'
seed $h inline-lf-only '\x00\x01\xffPING\nPING\n'
seed $h blank-lines '\x00\x01\xff\r\n\n   \r\n'
seed $h inline-empty-quotes '\x00\x01\xff""\r\n'
seed $h null-multibulk '\x00\x01\xff*-1\r\n*0\r\n*1\r\n$4\r\nPING\r\n'
seed $h empty-bulk '\x00\x01\xff*2\r\n$4\r\nECHO\r\n$0\r\n\r\n'
seed $h huge-count '\x00\x01\xff*2147483647\r\n$4\r\nPING\r\n'
seed $h count-over-int '\x00\x01\xff*2147483648\r\n'
seed $h huge-bulk '\x00\x01\xff*1\r\n$9223372036854775807\r\n'
seed $h bulk-overflow '\x00\x01\xff*1\r\n$99999999999999999999\r\n'
seed $h negative-bulk '\x00\x01\xff*1\r\n$-1\r\n'
seed $h minus-zero '\x00\x01\xff*-0\r\n'
seed $h leading-zero '\x00\x01\xff*01\r\n$04\r\nPING\r\n'
seed $h expected-dollar '\x00\x01\xff*1\r\n:4\r\nPING\r\n'
seed $h nul-bytes '\x00\x01\xff*2\r\n$4\r\nECHO\r\n$3\r\n\x00\x00\x00\r\n'
seed $h nul-inline '\x00\x01\xffECHO a\x00b\r\n'
seed $h lenient-trailer '\x00\x01\xff*1\rX$4\r\nPINGxy'
seed $h crlf-split '\x00\x03\x01*1\r\n$4\r\nPI\r\n\r\n'
seed $h unauth-too-many-args '\x01\x01\xff*11\r\n'
seed $h unauth-big-bulk '\x01\x01\xff*1\r\n$16385\r\n'
seed $h unauth-then-auth '\x03\x01\xff*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*11\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n'
seed $h small-max-bulk '\x10\x01\xff*1\r\n$6\r\nlonger\r\n'
seed $h incomplete-bulk '\x00\x01\xff*2\r\n$3\r\nGET\r\n$100\r\nabc'

# fuzz_wire: 4 control bytes (limits as above plus bit 5 "take the first
# external argument", split seed, chunking: bits 0-6 = 1..128 bytes, bit 7
# x512; expansion: high nibble = mask over bulk headers i%4, low nibble =
# size step), then the client's bytes. An expanded `$n` becomes
# n + 32767 + step*1021 bytes: \x49 on header 2 makes SET's value ~41 KiB.
h=fuzz_wire
seed $h ping '\x00\x01\xff\x00*1\r\n$4\r\nPING\r\n'
seed $h set-40k-chunks '\x00\x05\x87\x49*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$8\r\nvalue-40\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n'
seed $h set-40k-small-chunks '\x00\x09\x7f\x48*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n'
seed $h set-40k-taken '\x20\x03\x83\x49*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$8\r\nvalue-40\r\n'
seed $h mset-two-big '\x00\x07\x85\x40*7\r\n$4\r\nMSET\r\n$1\r\na\r\n$3\r\nxyz\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$2\r\npq\r\n'
seed $h mset-two-big-taken '\x20\x0b\xbf\x43*7\r\n$4\r\nMSET\r\n$1\r\na\r\n$3\r\nxyz\r\n$1\r\nb\r\n$1\r\nc\r\n$1\r\nd\r\n$2\r\npq\r\n'
seed $h big-then-bad-header '\x00\x05\x81\x40*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nvv\r\n:1\r\n'
seed $h big-then-error-next '\x00\x05\x84\x20*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n:4\r\nPING\r\n'
seed $h big-lenient-trailer '\x00\x02\x88\x20*2\r\n$4\r\nECHO\r\n$2\r\nabXY*1\r\n$4\r\nPING\r\n'
seed $h big-incomplete '\x00\x02\x88\x20*2\r\n$4\r\nECHO\r\n$3\r\nabc'
seed $h big-unauthenticated '\x01\x01\xff\x20*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n'
seed $h big-over-max-bulk '\x18\x01\xff\x20*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n'
seed $h handshake '\x00\x01\xff\x00GOBLINS!*1\r\n$4\r\nPING\r\n'
seed $h handshake-prefix '\x00\x01\xff\x00GOBLINS'
seed $h handshake-near-miss-last '\x00\x01\xff\x00GOBLINS?\r\n'
seed $h handshake-near-miss-middle '\x00\x01\xff\x00GOBXINS!\r\n'
seed $h handshake-lowercase '\x00\x01\xff\x00goblins!\r\n'
seed $h handshake-twice '\x00\x01\xff\x00GOBLINS!GOBLINS!\r\n'

# fuzz_ring_reader: byte 0 queue size (0 = 256 bytes .. 4 = 4 KiB), byte 1
# epoch, then operations: \x00 LEN BYTES write, \x01 CAP-1 read,
# \x02 IDX LEN32 KIND forge, \x03 OFF16 LEN BYTES scribble, \x04 STEP reconnect.
h=fuzz_ring_reader
ping='*1\r\n$4\r\nPING\r\n'
seed $h honest-ping "\x00\x01\x00\x0e$ping\x01\xff"
seed $h honest-wrap "\x00\x07\x00\x28$(printf 'a%.0s' {1..40})\x01\xff\x00\x28$(printf 'b%.0s' {1..40})\x00\x28$(printf 'c%.0s' {1..40})\x01\x10\x01\xff\x00\x28$(printf 'd%.0s' {1..40})\x00\x28$(printf 'e%.0s' {1..40})\x01\xff\x01\xff"
seed $h honest-small-reads "\x01\x02\x00\x0e$ping\x00\x0e$ping\x01\x00\x01\x02\x01\x03\x01\xff"
seed $h forge-huge-len '\x00\x01\x02\x00\xff\xff\xff\xff\x01\x01\xff'
seed $h forge-len-to-end '\x00\x01\x02\x00\xf0\x00\x00\x00\x01\x01\xff'
seed $h forge-wrap-filler '\x00\x01\x02\x00\xb0\x00\x00\x00\x02\x01\xff'
seed $h forge-wrap-overrun '\x00\x01\x02\x00\xf1\x00\x00\x00\x02\x01\xff'
seed $h forge-ahead '\x00\x01\x02\x01\x04\x00\x00\x00\x01\x01\xff'
seed $h scribble-header "\x00\x01\x00\x0e$ping\x03\x08\x00\x04\xff\xff\xff\x7f\x01\xff"
seed $h partial-then-shrink "\x00\x01\x00\x30$(printf 'x%.0s' {1..48})\x01\x09\x02\x00\x01\x00\x00\x00\x01\x01\xff"
seed $h reconnect-stale "\x00\x05\x00\x0e$ping\x04\x00\x01\xff\x00\x0e$ping\x01\xff"
seed $h big-queue "\x04\x03\x00\xff$(printf 'z%.0s' {1..255})\x01\xff\x01\xff"

# fuzz_resp_reader: byte 0 render capacity - 1, byte 1 prefix cut, then replies.
h=fuzz_resp_reader
seed $h simple-types '\xff\x03+OK\r\n-ERR bad\r\n:42\r\n,3.14\r\n#t\r\n_\r\n(12345678901234567890\r\n'
seed $h bulk '\xff\x05$5\r\nhello\r\n$0\r\n\r\n$-1\r\n'
seed $h bulk-binary '\x10\x06$4\r\n\r\n\x00\xff\r\n'
seed $h array-nested '\xff\x09*2\r\n*2\r\n:1\r\n:2\r\n$3\r\nabc\r\n*-1\r\n*0\r\n'
seed $h resp3-map-set '\xff\x11%%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n~2\r\n+x\r\n+y\r\n'
seed $h resp3-push-attr '\xff\x04>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n|1\r\n+ttl\r\n:3\r\n+OK\r\n'
seed $h verbatim-blob-error '\xff\x07=15\r\ntxt:Some string\r\n!9\r\nERR a b c\r\n'
seed $h huge-bulk '\xff\x02$9223372036854775807\r\nabc'
seed $h huge-map '\xff\x02%%4611686018427387904\r\n+a\r\n'
seed $h huge-array '\xff\x02*9223372036854775807\r\n:1\r\n'
seed $h bad-line-end '\xff\x02+OK\rX'
seed $h bad-count '\xff\x02*abc\r\n'
seed $h deep-nesting "\xff\x01$(printf '*1\\r\\n%.0s' {1..70}):1\r\n"
seed $h incomplete '\x00\x00*3\r\n$3\r\nSET\r\n$1\r'
seed $h unknown-type '\x00\x00?what\r\n'

# fuzz_sbe_wire: 2 control bytes (largest chunk - 1, proto_max_bulk_len:
# \x80 = 512 MiB), then SBE frames: uint32 length, header (blockLength,
# templateId, schemaId 7447 = \x17\x1d, version 1), block (correlation id
# first), groups, var-data. The same bytes also drive the encoder as rows.
h=fuzz_sbe_wire
hdr='\x17\x1d\x01\x00'
seed $h ping '\x40\x80\x10\x00\x00\x00\x08\x00\x02\x00'$hdr'\x01\x00\x00\x00\x00\x00\x00\x00'
seed $h command-get '\x40\x80\x20\x00\x00\x00\x08\x00\x01\x00'$hdr'\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x00\x00GET\x01\x00\x00\x00k'
seed $h set-typed-bytewise '\x00\x80\x25\x00\x00\x00\x12\x00\x04\x00'$hdr'\x03\x00\x00\x00\x00\x00\x00\x00\x05\x01\x10\x27\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00k\x02\x00\x00\x00v1'
seed $h zadd-typed '\x40\x80\x26\x00\x00\x00\x11\x00\x0a\x00'$hdr'\x04\x00\x00\x00\x00\x00\x00\x00\x14\x00\x00\x00\x00\x00\x00\xf8\x3f\x01\x00\x00\x00z\x01\x00\x00\x00m'
seed $h unknown-template '\x40\x80\x10\x00\x00\x00\x08\x00\xe7\x03'$hdr'\x05\x00\x00\x00\x00\x00\x00\x00'
seed $h short-length '\x40\x80\x03\x00\x00\x00\x08\x00\x02\x00'
seed $h huge-length '\x40\x80\xff\xff\xff\xff'
seed $h group-count-past-frame '\x40\x80\x14\x00\x00\x00\x08\x00\x01\x00'$hdr'\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff'
seed $h data-past-frame '\x40\x80\x14\x00\x00\x00\x08\x00\x03\x00'$hdr'\x07\x00\x00\x00\x00\x00\x00\x00\x64\x00\x00\x00'
seed $h short-block '\x40\x80\x0c\x00\x00\x00\x04\x00\x03\x00'$hdr'\x08\x00\x00\x00'
seed $h bulk-over-limit '\x40\x02\x20\x00\x00\x00\x08\x00\x01\x00'$hdr'\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x00\x00GET\x01\x00\x00\x00k'
seed $h auth-user '\x40\x80\x23\x00\x00\x00\x08\x00\x1a\x00'$hdr'\x09\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00alice\x06\x00\x00\x00secret'
seed $h auth-default-unauthenticated '\x40\x82\x1e\x00\x00\x00\x08\x00\x1a\x00'$hdr'\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x06\x00\x00\x00secret'
seed $h ping-unauthenticated '\x40\x82\x10\x00\x00\x00\x08\x00\x02\x00'$hdr'\x0b\x00\x00\x00\x00\x00\x00\x00'
seed $h auth-past-frame-unauthenticated '\x40\x82\x18\x00\x00\x00\x08\x00\x1a\x00'$hdr'\x0c\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\x00\x00\x00'
seed $h long-frame-unauthenticated '\x40\x82\x00\x00\x01\x00\x08\x00\x1a\x00'$hdr
seed $h encoder-rows '\x0d\x06\x00\x04\x02\x0e\x0f\x09\x04\x04\x0f\x0b\x04\x03\x0f\x02\x02\x0f\x1d\x07\x00\x01\x03\x05\x0f'

# fuzz_hll: 1 control byte (bits 0-1 hll-sparse-max-bytes 0/40/300/3000,
# bits 2-4 elements to add), then the value. \x1c = limit 0, 7 adds.
h=fuzz_hll
H1='HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80'
H0='HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80'
seed $h empty-sparse "\x1f$H1"'\x7f\xff'
seed $h sparse-vals "\x1f$H1"'\x43\x44\x80\x4e\x78\x84\x6f\xb6'
seed $h sparse-short "\x04$H1"'\x7f\xfe'
seed $h sparse-val-overflow "\x04$H1"'\x7f\xff\x83'
seed $h sparse-truncated-xzero "\x1d$H1"'\x3f\x7f'
seed $h sparse-unmerged "\x1f$H1"'\x80\x80\x80\x80\x7f\xfb'
seed $h sparse-promote "\x1c$H1"'\xfc\xfc\x7f\xf7'
seed $h dense-zero "\x1c$H0$(printf '\\x00%.0s' $(seq 12288))"
seed $h dense-63 "\x1c$H0$(printf '\\xff%.0s' $(seq 12288))"
seed $h bad-encoding '\x00HYLL\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
seed $h not-hyll '\x00hello world, not an hll'
# fuzz_script_loader: 1 control byte (bits 0-1 the path: 0 EVAL's compile,
# 1 loadstring, 2 load with a reader, 3 string.dump's header then the rest;
# bits 2-7 the reader's piece length, 0 = an empty first piece), then the chunk.
h=fuzz_script_loader
seed $h eval-return '\x00return redis.call("get", KEYS[1])'
seed $h eval-syntax-error '\x00return ('
seed $h eval-binary '\x00\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00'
seed $h eval-long-brackets '\x00return [==[ a ]] ]=] ]==] .. [[x]] --[=[ c ]=]'
seed $h eval-unfinished-long '\x00return [===[ never closed'
seed $h eval-bad-delimiter '\x00return [=== x'
seed $h eval-escapes '\x00return "\\65\\066\\0067\\n\\\n" .. '"'"'\\999'"'"''
seed $h eval-numbers '\x00return 0x10, 1e308, 1e309, .5, 3., 0x'
seed $h loadstring-text '\x01local t = {} for i = 1, 3 do t[i] = i end return unpack(t)'
seed $h loadstring-binary '\x01\x1bLua'
seed $h load-pieces '\x0dreturn string.rep("ab", 3) .. tostring(nil)'
seed $h load-empty-first '\x02\x1bLuaQ'
seed $h load-empty-first-gc-error '\x02return +'
seed $h load-binary-pieces '\x05\x1bLuaQ\x00\x01\x04'
seed $h load-syntax-error '\x06local function f( return end'
seed $h dump-mutated '\x03\x00\x00\x00\x00\xff\xff\xff\x7f\x01\x02\x03'
seed $h dump-empty '\x03'

# fuzz_fabric_envelope: byte 0 window shape (low nibble: messages-1, high:
# bytes 64<<n), then messages as u16-LE length + bytes; built by python3
# (binary headers are unreadable as printf formats).
python3 - "$here/corpus/fuzz_fabric_envelope" <<'PY'
import os, struct, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
def env(t, seq=0, payload=b"", session=0x1122334455667788, version=1, corr=0):
    m = b"GFAB" + struct.pack("<BBHQQQII", version, t, 0, session, seq, corr, len(payload), 0) + payload
    return struct.pack("<H", len(m)) + m
def hello(vmin=1, vmax=1, name=b"\x02\x00\x9c\x41\x7f\x00\x00\x01" + b"\x00" * 8):
    return struct.pack("<BBHIII", vmin, vmax, len(name), 64, 1 << 20, 0) + name
seeds = {
    "in-order": b"\x27" + b"".join(env(3, s, b"*1\r\n$4\r\nPING\r\n") for s in (1, 2, 3)),
    "reversed": b"\x27" + b"".join(env(3, s, b"x" * s) for s in (4, 3, 2, 1)),
    "duplicates": b"\x27" + b"".join(env(3, s, b"d") for s in (2, 2, 1, 1, 2, 3)),
    "overflow-count": b"\x03" + b"".join(env(3, s, b"o") for s in (2, 9, 1)),
    "overflow-bytes": b"\x0f" + env(3, 2, b"b" * 60) + env(3, 3, b"b" * 60) + env(3, 1, b""),
    "hello": b"\x00" + env(1, 0, hello(), version=0),
    "hello-versions": b"\x00" + env(1, 0, hello(2, 3), version=0) + env(1, 0, hello(3, 2), version=0),
    "hello-ack": b"\x00" + env(2, 0, struct.pack("<BBBBIII", 1, 1, 1, 1, 30000, 131032, 64))
                 + env(2, 0, struct.pack("<BBBBIII", 0, 0, 1, 1, 0, 0, 0) + b"ERR refused"),
    "control": b"\x00" + env(4) + env(5) + env(6, 0, b"bye"),
    "bad-length": b"\x00" + struct.pack("<H", 44) + b"GFAB" + struct.pack("<BBHQQQII", 1, 3, 0, 1, 1, 0, 100, 0) + b"abcd",
    "huge-sequence": b"\x27" + env(3, (1 << 64) - 1, b"x") + env(3, 1, b"y"),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
PY

# fuzz_acl_file: an aclfile's bytes (Redis's format). Good files, each bad
# line Redis names, selectors, CRLF line ends, a NUL ending the text.
h=fuzz_acl_file
seed $h default-only 'user default on nopass ~* &* +@all\n'
seed $h two-users 'user default on nopass ~* &* +@all\nuser alice on #5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~cache:* resetchannels &news -@all +get +set\n'
seed $h selectors 'user carol on >pw (~x* +get) (+set ~y*) %%R~r* %%W~w* resetchannels allchannels\n'
seed $h crlf-blank 'user bob off\r\n\r\n   \r\nuser eve on nopass +@read -keys\r\n'
seed $h no-user-keyword 'alice on nopass\n'
seed $h duplicate 'user a on\nuser a off\n'
seed $h unknown-command 'user a on +nosuchcommand -@nosuchcategory\n'
seed $h bad-rule 'user a on <nopw >x #abc\n'
seed $h unmatched-paren 'user a on (~x +get\n'
seed $h nul-ends 'user a on\x00user b on\n'
seed $h subcommands 'user ops on nopass +config|get +client|list -debug +acl|whoami\n'
