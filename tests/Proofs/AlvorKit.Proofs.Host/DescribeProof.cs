using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

// Describe targets: the public P/Invoke stub and fields are the shapes the descriptions cover.
#pragma warning disable CA1051, CA1401

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
    public static DescribeReport Run()
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        Module module = typeof(DescribeTargets).Module;
        Guid mvid = module.ModuleVersionId;
        using var pe = new PEReader(File.OpenRead(module.Assembly.Location));
        MetadataReader md = pe.GetMetadataReader();

        var methods = new SortedDictionary<string, DescribedMethod>(StringComparer.Ordinal);
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
            bool ok = status == AlvkStatus.Ok;
            methods[$"{m.DeclaringType!.Name}.{m.Name}"] = new DescribedMethod(status.ToString(),
                ok ? d.ModuleMvid.ToGuid() == mvid : null, ok ? Describe(d) : null, Expected(pe, md, m.MetadataToken));
        }

        int add = typeof(DescribeTargets).GetMethod(nameof(DescribeTargets.Add))!.MetadataToken;
        var refusals = new SortedDictionary<string, string>(StringComparer.Ordinal)
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
        return new DescribeReport(methods, refusals, DescribeTargets.Add(20, 22), s.CommandsCompleted, s.QueueDepth);
    }

    private static NativeDescription Describe(AlvkMethodDescription d) =>
        new(d.MethodToken, d.ModuleEpoch, d.MethodFlags.ToString(), d.ParamCount,
            new MethodFacts(d.SignatureLength, d.SignatureHashHex, d.BodySize, d.CodeSize, d.MaxStack, d.EhClauseCount,
                d.LocalSignature, d.BodyIdentityHex));

    // The same facts, read independently from the file with System.Reflection.Metadata.
    private static MethodFacts Expected(PEReader pe, MetadataReader md, int token)
    {
        var handle = (MethodDefinitionHandle)MetadataTokens.Handle(token);
        MethodDefinition def = md.GetMethodDefinition(handle);
        byte[] signature = md.GetBlobBytes(def.Signature);
        var facts = new MethodFacts((uint)signature.Length, Convert.ToHexString(SHA256.HashData(signature)),
            null, null, null, null, null, null);
        if (def.RelativeVirtualAddress == 0)
            return facts;
        MethodBodyBlock body = pe.GetMethodBody(def.RelativeVirtualAddress);
        byte[] bytes = pe.GetSectionData(def.RelativeVirtualAddress).GetContent(0, body.Size).ToArray();
        return facts with
        {
            BodySize = (uint)body.Size,
            CodeSize = (uint)body.GetILBytes()!.Length,
            MaxStack = (uint)body.MaxStack,
            EhClauses = (uint)body.ExceptionRegions.Length,
            LocalSignature = body.LocalSignature.IsNil ? 0u : (uint)MetadataTokens.GetToken(body.LocalSignature),
            BodyIdentity = Convert.ToHexString(SHA256.HashData(bytes)),
        };
    }
}

internal static class MvidExtensions
{
    public static unsafe Guid ToGuid(this AlvkMvid mvid) => new(new ReadOnlySpan<byte>(mvid.Bytes, 16));
}
