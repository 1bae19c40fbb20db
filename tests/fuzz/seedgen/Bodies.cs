// Method bodies of a module (ECMA-335 II.25.4) for the body, IL-walk and SHA-256
// harnesses, and its method signatures as exact-dispatch targets.
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;

namespace AlvorKit.Fuzz.SeedGen;

internal static class Bodies
{
    public const ulong Replacement = 0x00007F5A12345678;

    /// <summary>The complete body (header, code, sections) of a method, or null.</summary>
    public static (byte[] Raw, MethodBodyBlock Body)? Read(PEReader pe, MethodDefinition method)
    {
        if (method.RelativeVirtualAddress == 0 ||
            (method.ImplAttributes & MethodImplAttributes.CodeTypeMask) != MethodImplAttributes.IL)
            return null;
        try
        {
            MethodBodyBlock body = pe.GetMethodBody(method.RelativeVirtualAddress);
            byte[] raw = pe.GetSectionData(method.RelativeVirtualAddress).GetContent(0, body.Size).ToArray();
            return (raw, body);
        }
        catch (BadImageFormatException)
        {
            return null;
        }
    }

    public static IEnumerable<string> CodeFeatures(byte[] code)
    {
        List<Instruction>? walk = Il.Walk(code);
        if (walk == null)
            return ["undecodable"];
        return walk.Select(i => $"op:{i.OpCode:x4}");
    }

    private static bool IsValueType(MetadataReader md, TypeDefinition type)
    {
        EntityHandle baseType = type.BaseType;
        if (baseType.IsNil)
            return false;
        (StringHandle ns, StringHandle name) = baseType.Kind switch
        {
            HandleKind.TypeReference => (md.GetTypeReference((TypeReferenceHandle)baseType).Namespace,
                                         md.GetTypeReference((TypeReferenceHandle)baseType).Name),
            HandleKind.TypeDefinition => (md.GetTypeDefinition((TypeDefinitionHandle)baseType).Namespace,
                                          md.GetTypeDefinition((TypeDefinitionHandle)baseType).Name),
            _ => (default, default),
        };
        return !ns.IsNil && md.GetString(ns) == "System" &&
               md.GetString(name) is "ValueType" or "Enum";
    }

    public static void Collect(PEReader pe, MetadataReader md, Corpora c)
    {
        int row = 0;
        foreach (MethodDefinitionHandle h in md.MethodDefinitions)
        {
            ++row;
            MethodDefinition method = md.GetMethodDefinition(h);
            AddDispatch(md, method, row, c);
            var read = Read(pe, method);
            if (read == null)
                continue;
            var (raw, body) = read.Value;
            byte[] code = body.GetILBytes() ?? [];
            string[] shape =
            [
                raw[0] % 4 == 3 ? "fat" : "tiny", $"eh:{Math.Min(body.ExceptionRegions.Length, 3)}",
                body.LocalSignature.IsNil ? "nolocals" : "locals",
                body.LocalVariablesInitialized ? "init" : "noinit",
            ];
            // Byte 0: no clause array on even rows, exactly enough room on odd ones.
            int room = row % 2 == 0 ? 0 : Math.Min(255, 1 + body.ExceptionRegions.Length);
            c.MethodBody.Add([(byte)room, .. raw], shape.Append($"room:{room > 0}"));
            c.IlWalk.Add(code, CodeFeatures(code));
            int splits = row % 5;
            var input = new Inputs().U8(splits);
            for (int i = 0; i < splits; ++i)
                input.U16(row * (i + 7) % (raw.Length + 1));
            c.Sha256.Add(input.Bytes(raw).ToArray(), [$"splits:{splits}", $"tail:{raw.Length % 64 / 8}"]);
        }
    }

    /// <summary>The method as an exact-dispatch target: receiver kind, declaring TypeDef,
    /// replacement pointer and calli token, then its signature.</summary>
    private static void AddDispatch(MetadataReader md, MethodDefinition method, int row, Corpora c)
    {
        TypeDefinitionHandle declaring = method.GetDeclaringType();
        TypeDefinition type = md.GetTypeDefinition(declaring);
        int receiver = (method.Attributes & MethodAttributes.Static) != 0 ? 0
                     : IsValueType(md, type) ? 2 : 1;
        byte[] sig = md.GetBlobBytes(method.Signature);
        byte[] input = new Inputs()
            .U8(receiver)
            .U32((uint)MetadataTokens.GetToken(declaring))
            .U64(Replacement)
            .U32(0x11000000u | (uint)(1 + row % 3))
            .Bytes(sig)
            .ToArray();
        bool genericType = type.GetGenericParameters().Count > 0;
        c.Dispatch.Add(input, Signatures.Features(sig).Append($"receiver:{receiver}")
                                                  .Append($"generic_type:{genericType}"));
    }
}
