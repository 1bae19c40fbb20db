// Little-endian builders for the structured inputs some harnesses read (their layouts are
// documented at the top of each tests/fuzz/fuzz_<name>.c).
namespace AlvorKit.Fuzz.SeedGen;

internal sealed class Inputs
{
    private readonly List<byte> _bytes = new();

    public Inputs U8(int v) { _bytes.Add((byte)v); return this; }
    public Inputs U16(int v) { U8(v); return U8(v >> 8); }
    public Inputs U32(uint v) { U16((int)(v & 0xFFFF)); return U16((int)(v >> 16)); }
    public Inputs U64(ulong v) { U32((uint)v); return U32((uint)(v >> 32)); }
    public Inputs Bytes(ReadOnlySpan<byte> b) { foreach (byte x in b) _bytes.Add(x); return this; }
    public Inputs Text(string s) => Bytes(System.Text.Encoding.UTF8.GetBytes(s));
    public int Length => _bytes.Count;
    public byte[] ToArray() => _bytes.ToArray();
}
