using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text.Json.Nodes;
using AlvorKit.Interception.Native;

namespace AlvorKit.Proofs.Host;

// Methods of several shapes for alvk_describe_method. Their bodies only need to exist.
public abstract class DescribeTargets
{
    public static int Add(int a, int b) => a + b;

    public string Instance(ref int counter, out string label)
    {
        counter++;
        label = counter.ToString();
        return label + GetType().Name;
    }

    public static int WithFinally(int[] values)
    {
        int sum = 0;
        try
        {
            foreach (int v in values)
                sum += v;
        }
        finally
        {
            sum ^= 1;
        }
        return sum;
    }

    public static T Identity<T>(T value) => value;

    public abstract int Abstract();

    [DllImport("libc", EntryPoint = "getpid")]
    public static extern int Extern();

    [MethodImpl(MethodImplOptions.InternalCall)]
    public static extern int InternalCall();
}

public struct DescribeStruct
{
    public int Value;
    public int Twice() => Value * 2;
}

public class DescribeGeneric<T>
{
    public T? Stored;
    public T? Get() => Stored;
}

public static class DescribeProof
{
    // What the native profiler reports next to what System.Reflection.Metadata reads from the
    // assembly file on disk, for each method; then the refusals.
    public static JsonObject Run()
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        Module module = typeof(DescribeTargets).Module;
        Guid mvid = module.ModuleVersionId;
        using var pe = new PEReader(File.OpenRead(module.Assembly.Location));
        MetadataReader md = pe.GetMetadataReader();

        var methods = new JsonObject();
        foreach (MethodBase m in new MethodBase[]
        {
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Add))!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Instance))!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.WithFinally))!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Identity))!,
            typeof(DescribeStruct).GetMethod(nameof(DescribeStruct.Twice))!,
            typeof(DescribeGeneric<>).GetMethod("Get")!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Abstract))!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Extern))!,
            typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.InternalCall))!,
        })
        {
            AlvkStatus status = library.DescribeMethod(mvid, m.MetadataToken, out AlvkMethodDescription d);
            var entry = new JsonObject { ["status"] = status.ToString() };
            if (status == AlvkStatus.Ok)
            {
                entry["native"] = Describe(d);
                entry["mvidMatches"] = d.ModuleMvid.ToGuid() == mvid;
            }
            entry["expected"] = Expected(pe, md, m.MetadataToken);
            methods[$"{m.DeclaringType!.Name}.{m.Name}"] = entry;
        }

        int add = typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Add))!.MetadataToken;
        var refusals = new JsonObject
        {
            ["unknownMvid"] = library.DescribeMethod(Guid.NewGuid(), add, out _).ToString(),
            ["moduleNotAllowed"] = library.DescribeMethod(typeof(object).Module.ModuleVersionId,
                typeof(object).GetMethod(nameof(ToString))!.MetadataToken, out _).ToString(),
            ["typeDefToken"] = library.DescribeMethod(mvid, typeof(DescribeTargets).MetadataToken, out _).ToString(),
            ["ridZero"] = library.DescribeMethod(mvid, 0x06000000, out _).ToString(),
            ["ridOutOfRange"] = library.DescribeMethod(mvid, 0x06FFFFFF, out _).ToString(),
            ["nullMvid"] = library.DescribeMethodWithNulls(nullMvid: true, nullOut: false).ToString(),
            ["nullOut"] = library.DescribeMethodWithNulls(nullMvid: false, nullOut: true).ToString(),
            ["smallStruct"] = library.DescribeMethod(mvid, add, out _, size: 8).ToString(),
        };
        library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        return new JsonObject
        {
            ["methods"] = methods,
            ["refusals"] = refusals,
            ["addStillWorks"] = DescribeTargets.Add(20, 22),
            ["commandsCompleted"] = s.CommandsCompleted,
            ["queueDepth"] = s.QueueDepth,
        };
    }

    private static JsonObject Describe(AlvkMethodDescription d) => new()
    {
        ["token"] = d.MethodToken,
        ["epoch"] = d.ModuleEpoch,
        ["flags"] = d.MethodFlags.ToString(),
        ["paramCount"] = d.ParamCount,
        ["signatureLength"] = d.SignatureLength,
        ["signatureHash"] = d.SignatureHashHex,
        ["bodySize"] = d.BodySize,
        ["codeSize"] = d.CodeSize,
        ["maxStack"] = d.MaxStack,
        ["ehClauses"] = d.EhClauseCount,
        ["localSignature"] = d.LocalSignature,
        ["bodyIdentity"] = d.BodyIdentityHex,
    };

    // The same facts, read independently from the file with System.Reflection.Metadata.
    private static JsonObject Expected(PEReader pe, MetadataReader md, int token)
    {
        var handle = (MethodDefinitionHandle)MetadataTokens.Handle(token);
        MethodDefinition def = md.GetMethodDefinition(handle);
        byte[] signature = md.GetBlobBytes(def.Signature);
        var expected = new JsonObject
        {
            ["signatureLength"] = signature.Length,
            ["signatureHash"] = Convert.ToHexString(SHA256.HashData(signature)),
        };
        if (def.RelativeVirtualAddress != 0)
        {
            MethodBodyBlock body = pe.GetMethodBody(def.RelativeVirtualAddress);
            byte[] bytes = pe.GetSectionData(def.RelativeVirtualAddress).GetContent(0, body.Size).ToArray();
            expected["bodySize"] = body.Size;
            expected["codeSize"] = body.GetILBytes()!.Length;
            expected["maxStack"] = body.MaxStack;
            expected["ehClauses"] = body.ExceptionRegions.Length;
            expected["localSignature"] = body.LocalSignature.IsNil ? 0 : MetadataTokens.GetToken(body.LocalSignature);
            expected["bodyIdentity"] = Convert.ToHexString(SHA256.HashData(bytes));
        }
        return expected;
    }
}

internal static class MvidExtensions
{
    public static unsafe Guid ToGuid(this AlvkMvid mvid) => new(new ReadOnlySpan<byte>(mvid.Bytes, 16));
}
