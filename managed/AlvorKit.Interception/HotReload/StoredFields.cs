using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Instance fields a reload adds to a class that already lives: their values are kept per object
/// in a ConditionalWeakTable (the object is the key, so an object that dies takes its values
/// with it), in a storage class of the type's mirror with one instance field per added field.
/// The mirror has three static accessors per field, named with characters C# cannot write so
/// they never meet a user's method: <c>name&lt;get</c> (ldfld), <c>name&lt;set</c> (stfld) and
/// <c>name&lt;ref</c> (ldflda, a managed pointer into the storage). An object that existed before
/// the reload reads the field's default value; one constructed after runs its initializer (the
/// constructors' new bodies store it through the setter).
/// </summary>
internal static class StoredFields
{
    public const string GetterSuffix = "<get";
    public const string SetterSuffix = "<set";
    public const string AddressSuffix = "<ref";

    /// <summary>The storage class's name, nested in the mirror.</summary>
    public const string StorageName = "<AddedFields>";

    /// <summary>The static field of the storage class holding the table.</summary>
    public const string TableField = "<table>";

    /// <summary>The accessor's static signature for a field of signature <paramref name="fieldSignature"/>:
    /// get <c>T (this)</c>, set <c>void (this, T)</c>, address <c>ref T (this)</c>.</summary>
    public static byte[] AccessorSignature(ILOpCode opcode, BlobReader fieldSignature, Func<EntityHandle, int> mapType,
                                           Action<BlobBuilder> writeThis)
    {
        byte[] field = SignatureRewriter.Signature(fieldSignature, mapType);
        ReadOnlySpan<byte> fieldType = field.AsSpan(1); // after FIELD (0x06)
        var blob = new BlobBuilder();
        blob.WriteByte(0x00); // DEFAULT, static
        switch (opcode)
        {
            case ILOpCode.Ldfld:
                blob.WriteCompressedInteger(1);
                blob.WriteBytes(fieldType.ToArray());
                writeThis(blob);
                break;
            case ILOpCode.Stfld:
                blob.WriteCompressedInteger(2);
                blob.WriteByte((byte)SignatureTypeCode.Void);
                writeThis(blob);
                blob.WriteBytes(fieldType.ToArray());
                break;
            case ILOpCode.Ldflda:
                blob.WriteCompressedInteger(1);
                blob.WriteByte((byte)SignatureTypeCode.ByReference);
                blob.WriteBytes(fieldType.ToArray());
                writeThis(blob);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(opcode));
        }
        return blob.ToArray();
    }

    /// <summary>The accessor name for <paramref name="opcode"/>.</summary>
    public static string Accessor(string field, ILOpCode opcode) => field + opcode switch
    {
        ILOpCode.Ldfld => GetterSuffix,
        ILOpCode.Stfld => SetterSuffix,
        _ => AddressSuffix,
    };

    /// <summary>Whether a field signature's type is one the accessor can return (not a by-ref-like).</summary>
    public static bool IsPlainFieldSignature(byte[] signature) =>
        signature.Length >= 2 && signature[0] == 0x06 &&
        signature[1] is not ((byte)SignatureTypeCode.TypedReference or (byte)SignatureTypeCode.ByReference);

    internal static int TokenOf(EntityHandle handle) => MetadataTokens.GetToken(handle);
}
