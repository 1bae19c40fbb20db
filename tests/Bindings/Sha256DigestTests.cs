using AlvorKit.Interception;
using Xunit;

namespace AlvorKit.Bindings.Tests;

/// <summary>The digest type the API hands out for the profiler's hashes: bytes in, the same
/// bytes out, compared by value, printed as hex.</summary>
public sealed class Sha256DigestTests
{
    private static byte[] Bytes(byte seed) => Enumerable.Range(0, 32).Select(i => (byte)(seed + i)).ToArray();

    [Fact]
    public void BytesComeBackAsTheyWent()
    {
        byte[] bytes = Bytes(7);
        var digest = new Sha256Digest(bytes);
        bytes[0] = 0xFF; // the digest holds its own copy
        Assert.Equal(Bytes(7), digest.AsSpan().ToArray());
        var copy = new byte[32];
        digest.CopyTo(copy);
        Assert.Equal(Bytes(7), copy);
    }

    [Fact]
    public void EqualityIsByValue()
    {
        Assert.Equal(new Sha256Digest(Bytes(1)), new Sha256Digest(Bytes(1)));
        Assert.True(new Sha256Digest(Bytes(1)) == new Sha256Digest(Bytes(1)));
        Assert.True(new Sha256Digest(Bytes(1)) != new Sha256Digest(Bytes(2)));
        Assert.Equal(new Sha256Digest(Bytes(1)).GetHashCode(), new Sha256Digest(Bytes(1)).GetHashCode());
        Assert.Equal(default, new Sha256Digest(new byte[32]));
    }

    [Fact]
    public void TextIsSixtyFourHexDigitsAndParsesBack()
    {
        var digest = new Sha256Digest(Bytes(0xF0));
        string text = digest.ToString();
        Assert.Equal(64, text.Length);
        Assert.StartsWith("F0F1F2", text, StringComparison.Ordinal);
        Assert.Equal(digest, Sha256Digest.Parse(text));
    }

    [Fact]
    public void OnlyThirtyTwoBytesMakeADigest()
    {
        Assert.Throws<ArgumentException>(() => new Sha256Digest(new byte[31]));
        Assert.Throws<ArgumentException>(() => new Sha256Digest(new byte[33]));
        Assert.Throws<ArgumentException>(() => Sha256Digest.Parse("ABCD"));
    }
}
