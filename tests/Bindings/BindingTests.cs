using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using AlvorKit.Interception;
using AlvorKit.Interception.Native;
using AlvorKit.Tests.Support;
using Xunit;

namespace AlvorKit.Bindings.Tests;

public sealed class BindingTests
{
    private static readonly string Root = Checkout.Root;
    private static readonly string Header = Path.Combine(Root, "include", "alvorkit_interception_profiler.h");
    private static readonly string Generator = Path.Combine(Root, "tools", "bindgen", "generate.py");

    [Fact]
    public void TheCheckedInBindingIsWhatTheHeaderGives()
    {
        var (code, output) = Run("/usr/bin/python3", Generator, "--check");
        Assert.True(code == 0, output);
        Assert.Contains($"{AlvkAbiManifest.FunctionCount} functions", output);
        Assert.Equal(AlvkAbiManifest.FunctionCount, AlvkExports.Names.Length);
    }

    [Fact]
    public void TheCheckFailsWhenAStructGainsAField()
    {
        string edited = EditedHeader(h => h.Replace(
            "    uint32_t queue_depth;          /* commands waiting now */",
            "    uint32_t queue_depth;          /* commands waiting now */\n    uint32_t added_field;"));
        var (code, output) = Run("/usr/bin/python3", Generator, "--check", "--header", edited);
        Assert.Equal(1, code);
        Assert.Contains("AddedField", output);
    }

    [Fact]
    public void TheCheckFailsWhenAFunctionIsRemoved()
    {
        string edited = EditedHeader(h => h.Replace(
            "ALVK_API alvk_status ALVK_CALL alvk_patch_wait(alvk_patch_handle handle, uint32_t timeout_ms);", ""));
        var (code, output) = Run("/usr/bin/python3", Generator, "--check", "--header", edited);
        Assert.Equal(1, code);
        Assert.Contains("alvk_patch_wait", output);
    }

    [Fact]
    public void ThePublicStatusEnumHasEveryStatusOfTheHeaderAtItsValue()
    {
        // Both enums come from the header: AlvkStatus from enum alvk_status, InterceptionStatus
        // from ALVK_STATUS_LIST (the generator refuses when the two disagree).
        Assert.Equal(Enum.GetNames<AlvkStatus>(), Enum.GetNames<InterceptionStatus>());
        foreach (AlvkStatus status in Enum.GetValues<AlvkStatus>())
            Assert.Equal((int)status, (int)Enum.Parse<InterceptionStatus>(status.ToString()));
        Assert.Equal(201, (int)InterceptionStatus.QueueFull);
        Assert.Equal(typeof(AlvkStatus).Assembly, typeof(InterceptionStatus).Assembly);
        Assert.Equal("AlvorKit.Interception", typeof(InterceptionStatus).Namespace);
    }

    [Fact]
    public void ThePublicEnumsMirroringTheHeaderHaveItsValues()
    {
        // The public enums are generated from the header's enums (values) and public_enums.py
        // (names, docs): each value of the C# binding's enum is a member of the public one.
        AssertMirrors<AlvkPatchState, PatchState>();
        AssertMirrors<AlvkDispatchPath, DispatchPath>();
        AssertMirrors<AlvkMethodFlags, MethodTraits>();
        AssertMirrors<AlvkRelocationKind, RelocationKind>();
        AssertMirrors<AlvkGenerationState, GenerationState>();
        AssertMirrors<AlvkStackType, StackType>();
        AssertMirrors<AlvkAllocationProfiling, AlvorKit.Interception.Allocations.AllocationProfiling>();
        AssertMirrors<AlvkCaptureMode, AlvorKit.Interception.Allocations.AllocationCaptureMode>();
        AssertMirrors<AlvkCapturePhase, AlvorKit.Interception.Allocations.AllocationCapturePhase>();
        Assert.Equal(0x10, (int)MethodTraits.NonVersionable);
        Assert.Equal(7, (int)RelocationKind.AssemblyRef);
    }

    private static void AssertMirrors<TNative, TPublic>() where TNative : struct, Enum where TPublic : struct, Enum
    {
        long[] published = [.. Enum.GetValues<TPublic>().Select(v => Convert.ToInt64(v))];
        foreach (TNative value in Enum.GetValues<TNative>())
        {
            if (value.ToString().EndsWith("MaxEnum", StringComparison.Ordinal))
                continue;
            Assert.True(published.Contains(Convert.ToInt64(value)),
                $"{typeof(TPublic).Name} has no member for {typeof(TNative).Name}.{value} ({Convert.ToInt64(value)})");
        }
    }

    [Fact]
    public void TheCheckFailsWhenAMirroredEnumGainsAMemberOrChangesAValue()
    {
        string added = EditedHeader(h => h.Replace(
            "    ALVK_PATCH_UNLOADED = 5, /* terminal: the target's module unloaded */",
            "    ALVK_PATCH_UNLOADED = 5, /* terminal: the target's module unloaded */\n    ALVK_PATCH_PARKED = 6,"));
        var (code, output) = Run("/usr/bin/python3", Generator, "--check", "--header", added);
        Assert.Equal(1, code);
        Assert.Contains("PatchState and alvk_patch_state disagree", output);
        Assert.Contains("ALVK_PATCH_PARKED", output);

        string moved = EditedHeader(h => h.Replace("    ALVK_CAPTURE_PHASE_STOPPING = 4,", "    ALVK_CAPTURE_PHASE_STOPPING = 9,"));
        (code, output) = Run("/usr/bin/python3", Generator, "--check", "--header", moved);
        Assert.Equal(1, code);
        Assert.Contains("PublicEnums.g.cs", output);
        Assert.Contains("Stopping = 9,", output);
    }

    [Fact]
    public void TheCheckFailsWhenAStatusDescriptionChanges()
    {
        string edited = EditedHeader(h => h.Replace(
            "\"the worker queue is full; nothing was enqueued\"", "\"the worker queue is full\""));
        var (code, output) = Run("/usr/bin/python3", Generator, "--check", "--header", edited);
        Assert.Equal(1, code);
        Assert.Contains("InterceptionStatus.g.cs", output);
        Assert.Contains("the worker queue is full.</summary>", output);
    }

    [Fact]
    public void EveryStructHasTheCLayout()
    {
        string dir = Directory.CreateTempSubdirectory("alvk-layout-").FullName;
        string source = Path.Combine(dir, "probe.c"), program = Path.Combine(dir, "probe");
        Assert.Equal(0, Run("/usr/bin/python3", Generator, "--probe", source).Code);
        var (cc, ccOutput) = Run("cc", "-std=c11", "-Wall", "-Werror", "-I", Path.Combine(Root, "include"),
            source, "-o", program);
        Assert.True(cc == 0, ccOutput);
        var (code, output) = Run(program);
        Assert.Equal(0, code);
        var c = new Dictionary<string, long>();
        foreach (string line in output.Split('\n', StringSplitOptions.RemoveEmptyEntries))
        {
            string[] p = line.Split(' ');
            c[p[0] == "struct" ? p[1] : $"{p[1]}.{p[2]}"] = long.Parse(p[^1]);
        }
        Assert.Equal(AlvkAbiManifest.StructCount, AlvkAbiManifest.Structs.Length);
        foreach (var (name, type, size, fields) in AlvkAbiManifest.Structs)
        {
            Assert.True(c[name] == size, $"{name}: C says {c[name]} bytes, the manifest {size}");
            int managedSize = (int)typeof(Unsafe).GetMethod(nameof(Unsafe.SizeOf))!
                .MakeGenericMethod(type).Invoke(null, null)!;
            Assert.True(managedSize == size, $"{name}: C# {type.Name} is {managedSize} bytes, C {size}");
            foreach (var (field, member, offset) in fields)
            {
                long managed = Marshal.OffsetOf(type, member).ToInt64();
                Assert.True(c[$"{name}.{field}"] == offset && managed == offset,
                    $"{name}.{field}: C {c[$"{name}.{field}"]}, manifest {offset}, C# {member} {managed}");
            }
        }
    }

    private static string EditedHeader(Func<string, string> edit)
    {
        string original = File.ReadAllText(Header), edited = edit(original);
        Assert.NotEqual(original, edited);
        string path = Path.Combine(Directory.CreateTempSubdirectory("alvk-header-").FullName,
            "alvorkit_interception_profiler.h");
        File.WriteAllText(path, edited);
        return path;
    }

    private static (int Code, string Output) Run(string file, params string[] args)
    {
        ProcessResult result = ChildProcess.Run(file, args);
        return (result.ExitCode, result.Stdout + result.Stderr);
    }
}
