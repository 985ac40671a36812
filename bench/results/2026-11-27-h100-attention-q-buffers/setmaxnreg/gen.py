"""Writes a PTX kernel of 512 threads (`.maxntid 512`, `.minnctapersm 1`: 128 registers per thread
at launch) whose warpgroups 1-3 keep LIVE f32 values live across a loop, after raising their
registers to RAISE with `setmaxnreg.inc` (0: no raise); warpgroup 0 lowers its own to 32.
Whether ptxas spills tells which register count it compiles the raised code for.

    python3 gen.py LIVE RAISE > k.ptx && ptxas -arch=sm_90a -v k.ptx
"""
import sys

live, raise_to = int(sys.argv[1]), int(sys.argv[2])
out = [".version 8.3", ".target sm_90a", ".address_size 64", "",
       ".visible .entry k(.param .u64 p, .param .u32 n)", ".maxntid 512, 1, 1", ".minnctapersm 1", "{",
       f"  .reg .f32 %f<{live}>;", "  .reg .u64 %rd<4>;", "  .reg .u32 %r<4>;", "  .reg .pred %p<3>;",
       "  ld.param.u64 %rd1, [p];", "  ld.param.u32 %r1, [n];", "  mov.u32 %r2, %tid.x;",
       "  setp.lt.u32 %p1, %r2, 128;", "  @%p1 bra LOWER;"]
if raise_to:
    out.append(f"  setmaxnreg.inc.sync.aligned.u32 {raise_to};")
out += ["  mul.wide.u32 %rd2, %r2, 4;", "  add.u64 %rd3, %rd1, %rd2;"]
out += [f"  ld.global.f32 %f{i}, [%rd3+{i * 2048}];" for i in range(live)]
out += ["  mov.u32 %r3, 0;", "LOOP:"]
out += [f"  fma.rn.f32 %f{i}, %f{i}, %f{(i + 1) % live}, %f{(i + 7) % live};" for i in range(live)]
out += ["  add.u32 %r3, %r3, 1;", "  setp.lt.u32 %p2, %r3, %r1;", "  @%p2 bra LOOP;"]
out += [f"  st.global.f32 [%rd3+{i * 2048}], %f{i};" for i in range(live)]
out += ["  ret;", "LOWER:"]
if raise_to:
    out.append("  setmaxnreg.dec.sync.aligned.u32 32;")
out += ["  ret;", "}"]
print("\n".join(out))
