using System.Buffers.Binary;
using System.Reflection.Emit;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Interception.Internal;
using AlvorKit.Interception.Native;
using AlvorKit.Interception.Plans;
using Xunit;

namespace AlvorKit.HotReload.Tests;

/// <summary>Translations of Roslyn-built pairs, and the checks every translated body must pass:
/// the rebuilt body with its tokens mapped, and the native validator.</summary>
internal static class Translated
{
    /// <summary>Both sources compiled, compared and translated.</summary>
    public static (ReloadTranslation Translation, string Loaded, string Rebuilt) Of(string loaded, string rebuilt)
    {
        string loadedPath = Builds.Compile(loaded), rebuiltPath = Builds.Compile(rebuilt);
        return (ReloadTranslation.Translate(loadedPath, rebuiltPath), loadedPath, rebuiltPath);
    }

    /// <summary>The single translated body of a translation that was not refused.</summary>
    public static TranslatedBody Single(ReloadTranslation translation, string member)
    {
        Assert.Empty(translation.Refusals);
        TranslatedBody body = Assert.Single(translation.Bodies);
        Assert.Equal(member, body.Method.Member);
        return body;
    }

    /// <summary>
    /// The translated body is the rebuilt body byte for byte, except its tokens: an operand a
    /// relocation fills holds the nil token of the relocation's table, and every other token of
    /// the loaded module refers to what the rebuilt token refers to (by name and signature).
    /// The same for the locals token and typed catch clauses. Returns the relocations by offset.
    /// </summary>
    public static void AssertMapped(string loadedPath, string rebuiltPath, TranslatedBody body)
    {
        using var loadedImage = new PEReader(File.OpenRead(loadedPath));
        using var rebuiltImage = new PEReader(File.OpenRead(rebuiltPath));
        MetadataReader loaded = loadedImage.GetMetadataReader(), rebuilt = rebuiltImage.GetMetadataReader();
        var loadedNames = new MetadataNames(loaded, scoped: true);
        var rebuiltNames = new MetadataNames(rebuilt, scoped: true);
        MethodDefinition method = rebuilt.GetMethodDefinition(
            MetadataTokens.MethodDefinitionHandle(body.Method.RebuiltToken & 0xFFFFFF));
        MethodBodyBlock block = rebuiltImage.GetMethodBody(method.RelativeVirtualAddress);
        byte[] original = rebuiltImage.GetSectionData(method.RelativeVirtualAddress).GetContent(0, block.Size).ToArray();
        byte[] translated = body.Lowered.Body;
        Assert.Equal(original.Length, translated.Length);
        Assert.Equal(block.MaxStack, body.Lowered.MaxStack);
        var relocated = body.Lowered.Relocations.Where(r => r.ILOffset != RelocationTable.NoOperand).ToDictionary(r => r.ILOffset);

        int codeStart = (original[0] & 3) == 2 ? 1 : (original[1] >> 4) * 4;
        int codeSize = block.GetILBytes()!.Length;
        var tokenBytes = new HashSet<int>();
        int offset = 0;
        while (offset < codeSize)
        {
            byte first = original[codeStart + offset++];
            byte second = first == OpCodeTable.TwoBytePrefix ? original[codeStart + offset++] : (byte)0;
            OpCode opcode = OpCodeTable.Find(first, second)!.Value;
            int size = OpCodeTable.OperandSize(opcode.OperandType);
            if (opcode.OperandType == OperandType.InlineSwitch)
                size += 4 * BinaryPrimitives.ReadInt32LittleEndian(original.AsSpan(codeStart + offset));
            if (OpCodeTable.IsToken(opcode.OperandType))
            {
                int at = codeStart + offset;
                for (int i = 0; i < 4; i++)
                    tokenBytes.Add(at + i);
                int before = BinaryPrimitives.ReadInt32LittleEndian(original.AsSpan(at));
                int after = BinaryPrimitives.ReadInt32LittleEndian(translated.AsSpan(at));
                if (relocated.ContainsKey((uint)offset))
                    Assert.Equal(0, after & 0xFFFFFF); // a nil placeholder the profiler overwrites
                else
                    Assert.Equal(Referent(rebuiltNames, before), Referent(loadedNames, after));
            }
            offset += size;
        }
        if (!block.LocalSignature.IsNil)
        {
            for (int i = 8; i < 12; i++)
                tokenBytes.Add(i);
            int after = BinaryPrimitives.ReadInt32LittleEndian(translated.AsSpan(8));
            if (relocated.ContainsKey(RelocationTable.LocalsSignature))
                Assert.Equal(0x1100_0000, after);
            else
                Assert.Equal(rebuiltNames.Locals(block.LocalSignature).ToArray(),
                             loadedNames.Locals(MetadataTokens.StandaloneSignatureHandle(after & 0xFFFFFF)).ToArray());
        }
        for (int i = 0; i < block.ExceptionRegions.Length; i++)
        {
            ExceptionRegion region = block.ExceptionRegions[i];
            if (region.Kind != ExceptionRegionKind.Catch)
                continue;
            // The class token is the clause's last 4 bytes: find it as the bytes that differ.
            int token = MetadataTokens.GetToken(region.CatchType);
            int at = IndexOfToken(original, token, codeStart + codeSize);
            for (int b = 0; b < 4; b++)
                tokenBytes.Add(at + b);
            int after = BinaryPrimitives.ReadInt32LittleEndian(translated.AsSpan(at));
            if (relocated.ContainsKey(0xFFFF_0000u + (uint)i))
                Assert.Equal(0, after & 0xFFFFFF);
            else
                Assert.Equal(rebuiltNames.Type(region.CatchType), loadedNames.Type(MetadataTokens.EntityHandle(after)));
        }
        for (int i = 0; i < original.Length; i++)
        {
            if (!tokenBytes.Contains(i))
                Assert.True(original[i] == translated[i], $"byte {i} of the body changed, and it is no token");
        }
    }

    /// <summary>alvk_generation_validate on the generation, through the library
    /// ALVK_NATIVE_LIBRARY names (built by `cmake --build build/native-release`).</summary>
    public static (InterceptionStatus Status, uint FailingIndex) Validate(LoweredGeneration lowered)
    {
        InterceptionStatus status = NativeProfiler.Validate(Exports.Value, lowered, new MethodDescription
        {
            Method = typeof(Translated).GetMethod(nameof(Validate))!,
            MetadataToken = 0x0600_0001,
        }, owner: 1, out uint failing);
        return (status, failing);
    }

    /// <summary>The native validator accepts the generation.</summary>
    public static void AssertValid(LoweredGeneration lowered)
    {
        (InterceptionStatus status, uint failing) = Validate(lowered);
        Assert.True(status == InterceptionStatus.Ok,
            $"alvk_generation_validate: {status} (entry {failing}: " +
            $"{(failing < lowered.Relocations.Count ? lowered.Relocations[(int)failing].Description : "-")})");
    }

    private static readonly Lazy<AlvkExports> Exports = new(() =>
    {
        string? path = Environment.GetEnvironmentVariable("ALVK_NATIVE_LIBRARY");
        if (string.IsNullOrEmpty(path) || !File.Exists(path))
            throw new InvalidOperationException(
                "ALVK_NATIVE_LIBRARY must name the native library (build it: cmake --build build/native-release); " +
                $"it is '{path}'");
        return AlvkExports.Bind(NativeLibrary.Load(path));
    });

    private static string Referent(MetadataNames names, int token) =>
        (token >> 24) == 0x70
            ? "\"" + names.Reader.GetUserString(MetadataTokens.UserStringHandle(token & 0xFFFFFF)) + "\""
            : names.Token(MetadataTokens.EntityHandle(token));

    private static int IndexOfToken(byte[] body, int token, int from)
    {
        Span<byte> bytes = stackalloc byte[4];
        BinaryPrimitives.WriteInt32LittleEndian(bytes, token);
        int at = body.AsSpan(from).IndexOf(bytes);
        Assert.True(at >= 0, $"the catch type 0x{token:X8} is not in the exception clauses");
        return from + at;
    }

    /// <summary>The relocations, each as "Kind name-or-description".</summary>
    public static RelocationSpec[] OfKind(TranslatedBody body, RelocationKind kind) =>
        body.Lowered.Relocations.Where(r => r.Kind == kind).ToArray();

    /// <summary>A relocation's blob from the pool.</summary>
    public static byte[] Blob(TranslatedBody body, RelocationSpec relocation) =>
        body.Lowered.Pool.AsSpan((int)relocation.BlobOffset, (int)relocation.BlobLength).ToArray();

    /// <summary>A relocation's name from the pool.</summary>
    public static string Name(TranslatedBody body, RelocationSpec relocation) =>
        System.Text.Encoding.UTF8.GetString(body.Lowered.Pool, (int)relocation.NameOffset, (int)relocation.NameLength);
}
