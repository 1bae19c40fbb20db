namespace AlvorKit.Interception;

/// <summary>
/// A SHA-256 digest as the profiler reports it (a signature hash, a loaded-body identity):
/// 32 bytes, immutable, compared by value, printed as 64 upper-case hex digits. The bytes go
/// back to the profiler as they came, never through their text.
/// </summary>
public readonly struct Sha256Digest : IEquatable<Sha256Digest>
{
    /// <summary>Bytes in a digest.</summary>
    public const int Length = 32;

    private static readonly byte[] Zero = new byte[Length];

    // Never handed out: the digest is immutable. default(Sha256Digest) is 32 zero bytes.
    private readonly byte[]? _bytes;

    /// <summary>The digest whose bytes are <paramref name="bytes"/> (exactly 32).</summary>
    /// <exception cref="ArgumentException"><paramref name="bytes"/> is not 32 bytes long.</exception>
    public Sha256Digest(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length != Length)
            throw new ArgumentException($"a SHA-256 digest is {Length} bytes, not {bytes.Length}", nameof(bytes));
        _bytes = bytes.ToArray();
    }

    /// <summary>The 32 bytes.</summary>
    public ReadOnlySpan<byte> AsSpan() => _bytes ?? Zero;

    /// <summary>Copies the 32 bytes into <paramref name="destination"/>.</summary>
    public void CopyTo(Span<byte> destination) => AsSpan().CopyTo(destination);

    /// <summary>The digest's 64 hex digits.</summary>
    public static Sha256Digest Parse(string hex) => new(Convert.FromHexString(hex));

    /// <inheritdoc/>
    public bool Equals(Sha256Digest other) => AsSpan().SequenceEqual(other.AsSpan());

    /// <inheritdoc/>
    public override bool Equals(object? obj) => obj is Sha256Digest other && Equals(other);

    /// <inheritdoc/>
    public override int GetHashCode() => BitConverter.ToInt32(AsSpan());

    /// <summary>64 upper-case hex digits.</summary>
    public override string ToString() => Convert.ToHexString(AsSpan());

    /// <summary>Equal bytes.</summary>
    public static bool operator ==(Sha256Digest left, Sha256Digest right) => left.Equals(right);

    /// <summary>Different bytes.</summary>
    public static bool operator !=(Sha256Digest left, Sha256Digest right) => !left.Equals(right);
}
