using System.Reflection.Metadata;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Copies a signature blob (ECMA-335 II.23.2) element by element, handing every class
/// reference (a TypeDefOrRefOrSpecEncoded coded index) to a callback that returns the
/// compressed value to write in its place. The one place that knows the signature grammar:
/// method, field, local variable, MethodSpec and TypeSpec blobs.
/// </summary>
internal static class SignatureRewriter
{
    private const int MaxDepth = 64;

    /// <summary>A method (MemberRef, StandAloneSig, function pointer), field, locals or
    /// MethodSpec blob, told apart by its first byte.</summary>
    /// <param name="blob">The blob to read.</param>
    /// <param name="mapType">Maps a class reference of the source to the coded value to write.</param>
    public static byte[] Signature(BlobReader blob, Func<EntityHandle, int> mapType)
    {
        var output = new BlobBuilder();
        new Walk(blob, output, mapType).Signature();
        return output.ToArray();
    }

    /// <summary>A TypeSpec blob: one type.</summary>
    /// <param name="blob">The blob to read.</param>
    /// <param name="mapType">Maps a class reference of the source to the coded value to write.</param>
    public static byte[] TypeSpec(BlobReader blob, Func<EntityHandle, int> mapType)
    {
        var output = new BlobBuilder();
        var walk = new Walk(blob, output, mapType);
        walk.Type(0);
        walk.End();
        return output.ToArray();
    }

    /// <summary>
    /// An instance method's signature as a static method's that takes the instance first: the
    /// same calling convention without HASTHIS, one more parameter, the return type, then what
    /// <paramref name="writeThis"/> writes, then the parameters.
    /// </summary>
    public static byte[] WithExplicitThis(BlobReader blob, Func<EntityHandle, int> mapType, Action<BlobBuilder> writeThis)
    {
        var output = new BlobBuilder();
        byte header = blob.ReadByte();
        if ((header & 0x20) == 0 || (header & 0x0F) is 0x05 or 0x06 or 0x07 or 0x0A)
            throw new BadImageFormatException($"a signature with header 0x{header:X2} is not an instance method's");
        output.WriteByte((byte)(header & ~0x60)); // HASTHIS and EXPLICITTHIS off
        if ((header & 0x10) != 0)
            output.WriteCompressedInteger(blob.ReadCompressedInteger()); // generic arity
        int parameters = blob.ReadCompressedInteger();
        output.WriteCompressedInteger(parameters + 1);
        var walk = new Walk(blob, output, mapType);
        walk.Type(1); // return type
        writeThis(output);
        for (int i = 0; i < parameters; i++)
            walk.Type(1);
        walk.End();
        return output.ToArray();
    }

    /// <summary>
    /// A TypeSpec blob that is a generic instance (GENERICINST CLASS|VALUETYPE type args), with
    /// its generic type replaced by the class <paramref name="genericType"/> (a coded value) and
    /// its arguments mapped: the same instance of another generic class of the same arity.
    /// </summary>
    public static byte[] GenericInstance(BlobReader blob, Func<EntityHandle, int> mapType, int genericType)
    {
        var output = new BlobBuilder();
        if (blob.ReadByte() != 0x15)
            throw new BadImageFormatException("a TypeSpec that is not a generic instance");
        blob.ReadByte();
        blob.ReadTypeHandle();
        output.WriteByte(0x15);
        output.WriteByte(0x12); // CLASS: a mirror is a class
        output.WriteCompressedInteger(genericType);
        int arguments = blob.ReadCompressedInteger();
        output.WriteCompressedInteger(arguments);
        var walk = new Walk(blob, output, mapType);
        for (int i = 0; i < arguments; i++)
            walk.Type(0);
        walk.End();
        return output.ToArray();
    }

    private ref struct Walk(BlobReader input, BlobBuilder output, Func<EntityHandle, int> mapType)
    {
        private BlobReader _in = input;

        public void End()
        {
            if (_in.RemainingBytes != 0)
                throw new BadImageFormatException($"{_in.RemainingBytes} bytes after the end of a signature");
        }

        public void Signature()
        {
            byte header = Byte();
            switch (header & 0x0F)
            {
                case 0x06: // FIELD
                    Type(0);
                    break;
                case 0x07: // LOCAL_SIG
                    int locals = Count();
                    for (int i = 0; i < locals; i++)
                        Type(0);
                    break;
                case 0x0A: // GENERICINST (a MethodSpec's instantiation)
                    int arguments = Count();
                    for (int i = 0; i < arguments; i++)
                        Type(0);
                    break;
                default:
                    MethodTail(header, 0);
                    break;
            }
            End();
        }

        private void MethodTail(byte header, int depth)
        {
            if ((header & 0x10) != 0) // GENERIC: the arity
                Count();
            int parameters = Count();
            Type(depth + 1); // the return type
            for (int i = 0; i < parameters; i++)
            {
                if (_in.RemainingBytes > 0 && Peek() == 0x41) // SENTINEL before the varargs
                    Byte();
                Type(depth + 1);
            }
        }

        public void Type(int depth)
        {
            if (depth > MaxDepth)
                throw new BadImageFormatException("a signature nests deeper than " + MaxDepth);
            byte element = Byte();
            switch (element)
            {
                case >= 0x01 and <= 0x0E: // VOID .. STRING
                case 0x16 or 0x18 or 0x19 or 0x1C: // TYPEDBYREF, I, U, OBJECT
                    return;
                case 0x0F or 0x10 or 0x1D or 0x45: // PTR, BYREF, SZARRAY, PINNED
                    Type(depth + 1);
                    return;
                case 0x1F or 0x20: // CMOD_REQD, CMOD_OPT: a class, then the modified type
                    Class();
                    Type(depth + 1);
                    return;
                case 0x11 or 0x12: // VALUETYPE, CLASS
                    Class();
                    return;
                case 0x13 or 0x1E: // VAR, MVAR
                    Count();
                    return;
                case 0x14: // ARRAY: type, rank, sizes, lower bounds
                    Type(depth + 1);
                    Count();
                    int sizes = Count();
                    for (int i = 0; i < sizes; i++)
                        Count();
                    int bounds = Count();
                    for (int i = 0; i < bounds; i++)
                        output.WriteCompressedSignedInteger(_in.ReadCompressedSignedInteger());
                    return;
                case 0x15: // GENERICINST: CLASS or VALUETYPE, the generic type, its arguments
                    byte kind = Byte();
                    if (kind is not (0x11 or 0x12))
                        throw new BadImageFormatException($"a generic instantiation of element type 0x{kind:X2}");
                    Class();
                    int arguments = Count();
                    for (int i = 0; i < arguments; i++)
                        Type(depth + 1);
                    return;
                case 0x1B: // FNPTR: a method signature
                    MethodTail(Byte(), depth + 1);
                    return;
                default:
                    throw new BadImageFormatException($"element type 0x{element:X2} in a signature");
            }
        }

        private void Class()
        {
            EntityHandle handle = _in.ReadTypeHandle();
            if (handle.IsNil)
                throw new BadImageFormatException("a nil class reference in a signature");
            output.WriteCompressedInteger(mapType(handle));
        }

        private byte Byte()
        {
            byte value = _in.ReadByte();
            output.WriteByte(value);
            return value;
        }

        private readonly byte Peek()
        {
            BlobReader copy = _in;
            return copy.ReadByte();
        }

        private int Count()
        {
            int value = _in.ReadCompressedInteger();
            output.WriteCompressedInteger(value);
            return value;
        }
    }
}
