using System.Buffers;
using System.Text;

namespace AlvorKit.Interception.Allocations.Exporters;

/// <summary>The protobuf wire format, as far as profile.proto needs it: varints, and
/// length-delimited strings, nested messages and packed varints.</summary>
internal sealed class ProtoWriter
{
    private const int VarintType = 0;
    private const int LengthDelimitedType = 2;

    // A growable byte buffer with nothing to release (a MemoryStream would want disposing).
    private readonly ArrayBufferWriter<byte> _buffer = new();

    public byte[] ToArray() => _buffer.WrittenSpan.ToArray();

    public void UInt64(int field, ulong value)
    {
        Tag(field, VarintType);
        Varint(value);
    }

    public void Int64(int field, long value) => UInt64(field, unchecked((ulong)value));

    public void String(int field, string value) => Bytes(field, Encoding.UTF8.GetBytes(value));

    public void Message(int field, Action<ProtoWriter> body)
    {
        var inner = new ProtoWriter();
        body(inner);
        Bytes(field, inner.ToArray());
    }

    public void Packed(int field, IEnumerable<ulong> values)
    {
        var inner = new ProtoWriter();
        foreach (ulong v in values)
            inner.Varint(v);
        Bytes(field, inner.ToArray());
    }

    private void Bytes(int field, byte[] bytes)
    {
        Tag(field, LengthDelimitedType);
        Varint((ulong)bytes.Length);
        _buffer.Write(bytes);
    }

    private void Tag(int field, int wireType) => Varint((ulong)(field << 3 | wireType));

    private void Varint(ulong value)
    {
        for (; value >= 0x80; value >>= 7)
            WriteByte((byte)(value | 0x80));
        WriteByte((byte)value);
    }

    private void WriteByte(byte value)
    {
        _buffer.GetSpan(1)[0] = value;
        _buffer.Advance(1);
    }
}
