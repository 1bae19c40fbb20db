using System.Collections.Concurrent;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception;
using Xunit;

namespace AlvorKit.Proofs;

/// <summary>
/// ReadyToRun code under the profiler (tests/Proofs/ReadyToRun, published ReadyToRun with
/// crossgen2's opt-cross-module option naming the target's assembly), tiering on and off: the
/// target's own ReadyToRun inliners (one that ran before the patch, one first called after it)
/// and two cross-module ReadyToRun inliners (one that ran before, one loaded after) run the
/// patched body while patched and the original after removal; a [NonVersionable] target is
/// refused with its status; framework methods keep their precompiled code.
/// </summary>
[Trait("Feature", "Patches")]
[Trait("Sanitized", "yes")]
public sealed class ReadyToRunProofs
{
    private const string Targets = "AlvorKit.Proofs.R2R.Targets";

    private static string App { get; } = Checkout.Required("ALVK_R2R_PROOF_APP",
        "build tests/Proofs/AlvorKit.Proofs, which publishes it ReadyToRun",
        "tests", "Proofs", "ReadyToRun", "App", "bin", Checkout.Configuration, "published", "AlvorKit.Proofs.R2R.dll");

    private static readonly ConcurrentDictionary<string, Lazy<(Dictionary<string, string> Values, ProcessResult Run)>> Runs = new();

    // The app's "r2r.<key>=<value>" lines, from its one profiled launch per tiering mode.
    private static (Dictionary<string, string> Values, ProcessResult Run) Patched(string tiering) =>
        Runs.GetOrAdd(tiering, t => new(() =>
        {
            ProcessResult run = ProfiledProcess.RunAssembly(App, ProfiledProcess.ProfiledEnvironment(Targets),
                PatchReports.Tiering(t), TimeSpan.FromSeconds(60), "patch");
            Assert.True(run.ExitCode == 0, run.ToString());
            var values = new Dictionary<string, string>();
            foreach (string line in run.Stdout.Split('\n', StringSplitOptions.TrimEntries))
            {
                if (line.StartsWith("r2r.", StringComparison.Ordinal) && line.IndexOf('=', StringComparison.Ordinal) is > 4 and int eq)
                    values[line[4..eq]] = line[(eq + 1)..];
            }
            return (values, run);
        })).Value;

    private static void AssertValue(string tiering, string key, string expected)
    {
        (Dictionary<string, string> values, ProcessResult run) = Patched(tiering);
        Assert.True(values.TryGetValue(key, out string? actual), $"no r2r.{key} in the app's output:\n{run}");
        Assert.True(actual == expected, $"r2r.{key}: expected {expected}, got {actual}\n{run}");
    }

    [Fact]
    public void TheProofAssembliesAreReadyToRunWithCrossModuleInlines()
    {
        string folder = Path.GetDirectoryName(App)!;
        foreach (string name in new[] { Targets, "AlvorKit.Proofs.R2R.CrossEarly", "AlvorKit.Proofs.R2R.CrossLate" })
        {
            (uint flags, Dictionary<uint, int> sections) = ReadyToRunHeader(Path.Combine(folder, name + ".dll"));
            Assert.True(sections.ContainsKey(102), $"{name}: no RuntimeFunctions section (flags 0x{flags:X})");
            // CrossModuleInlineInfo: the callers' images record that they inlined the target.
            if (name != Targets)
                Assert.True(sections.TryGetValue(119, out int size) && size > 3, $"{name}: no cross-module inlines recorded");
        }
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void InlinersInTheTargetsOwnAssemblySeeThePatchThenTheOriginal(string tiering)
    {
        AssertValue(tiering, "patching", "True");
        // Caller ran its precompiled code (nothing JIT-compiled at its first call) with the
        // target inlined; RequestReJITWithInliners re-JITs it and LateCaller, first called after.
        AssertValue(tiering, "before.caller.jitted", "0");
        AssertValue(tiering, "before.caller", "15");
        AssertValue(tiering, "patched.caller", "515");
        AssertValue(tiering, "patched.lateCaller", "516");
        AssertValue(tiering, "removed.caller", "15");
        AssertValue(tiering, "removed.lateCaller", "16");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void CrossModuleInlinersSeeThePatchThenTheOriginal(string tiering)
    {
        (_, ProcessResult run) = Patched(tiering);
        // Their images may inline the allowlisted assembly: their precompiled code is refused
        // (CrossEarly's first call JIT-compiled it), so the JIT's own inline tracking applies.
        foreach (string name in new[] { "AlvorKit.Proofs.R2R.CrossEarly", "AlvorKit.Proofs.R2R.CrossLate" })
            Assert.Contains($"{name}: ReadyToRun code that may inline an allowlisted assembly", run.Stderr, StringComparison.Ordinal);
        // The status counts them: the two images (not the app, which references the allowlisted
        // assembly too but whose section 119 lists only inlinees of its own), and their methods' refused searches (at least
        // Call, CallGeneric and Helper<EarlyTag> in CrossEarly, and Call in CrossLate).
        AssertValue(tiering, "status.imagesRefused", "2");
        AssertValue(tiering, "status.refusalsOverflowed", "0");
        (Dictionary<string, string> values, _) = Patched(tiering);
        Assert.True(ulong.Parse(values["status.methodsRefused"], System.Globalization.CultureInfo.InvariantCulture) >= 4,
            $"status.methodsRefused: {values["status.methodsRefused"]}");
        AssertValue(tiering, "before.crossEarly.jitted", "1");
        AssertValue(tiering, "before.crossEarly", "17");
        AssertValue(tiering, "before.crossLate.loaded", "False");
        AssertValue(tiering, "patched.crossEarly", "517");
        AssertValue(tiering, "patched.crossLate.loadedBefore", "False");
        AssertValue(tiering, "patched.crossLate", "518");
        AssertValue(tiering, "removed.crossEarly", "17");
        AssertValue(tiering, "removed.crossLate", "18");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void GenericInstantiationsPrecompiledInARefusedImageSeeThePatchThenTheOriginal(string tiering)
    {
        // R2RTargets.Helper<EarlyTag> and Helper<LateTag> are precompiled in CrossEarly's and
        // CrossLate's images (refused), not in the Targets image of the module that defines
        // Helper: the refusal follows the type argument's module. One ran before the patch, one
        // is first called after it. Before the patch both CallGeneric (in CrossEarly) and
        // Helper<EarlyTag> are JIT-compiled at their first call: 2 (1 when the instantiation's
        // code came from CrossEarly's image, keyed on Helper's own module).
        AssertValue(tiering, "before.genericEarly.jitted", "2");
        AssertValue(tiering, "before.genericEarly", "20");
        AssertValue(tiering, "patched.genericEarly", "520");
        AssertValue(tiering, "patched.genericLate", "520");
        AssertValue(tiering, "removed.genericEarly", "20");
        AssertValue(tiering, "removed.genericLate", "20");
    }

    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void ANonVersionableTargetIsRefusedWithItsStatus(string tiering)
    {
        AssertValue(tiering, "target.traits", "None");
        AssertValue(tiering, "fixed.traits", "NonVersionable");
        AssertValue(tiering, "fixed.install", nameof(InterceptionStatus.TargetNonVersionable));
        AssertValue(tiering, "fixed.after", "47");
        (Dictionary<string, string> values, _) = Patched(tiering);
        Assert.Contains("ALVK_E_TARGET_NON_VERSIONABLE", values["fixed.message"], StringComparison.Ordinal);
    }

    /// <summary>
    /// Framework methods keep their ReadyToRun code: the methods the JIT compiles while the app
    /// starts and exits (DOTNET_JitStdOutFile + DOTNET_JitDisasmSummary), outside the proof's
    /// own assemblies, are as many under the profiler with patching on as without it, give or
    /// take 4. Both runs start the same app the same way, so the set is the same but for what
    /// the profiler itself makes the runtime compile, which is nothing outside the refused
    /// images; the 4 is room for a method whose compilation depends on timing. With ReadyToRun
    /// code disabled (the old COR_PRF_DISABLE_ALL_NGEN_IMAGES) this count was in the hundreds.
    /// </summary>
    [Theory]
    [MemberData(nameof(PatchReports.TieringModes), MemberType = typeof(PatchReports))]
    public void FrameworkMethodsKeepTheirReadyToRunCode(string tiering)
    {
        int unprofiled = FrameworkMethodsJitted(tiering, profiled: false, out string plainList);
        int profiled = FrameworkMethodsJitted(tiering, profiled: true, out string profiledList);
        Assert.True(profiled <= unprofiled + 4,
            $"{profiled} framework methods JIT-compiled under the profiler, {unprofiled} without:\n" +
            $"--- profiled\n{profiledList}\n--- unprofiled\n{plainList}");
    }

    private static int FrameworkMethodsJitted(string tiering, bool profiled, out string list)
    {
        string file = Path.Combine(Path.GetTempPath(), $"alvk-r2r-jit-{Environment.ProcessId}-{tiering}-{profiled}.txt");
        File.Delete(file);
        var settings = new Dictionary<string, string?>(PatchReports.Tiering(tiering))
        {
            ["DOTNET_JitStdOutFile"] = file,
            ["DOTNET_JitDisasmSummary"] = "1",
        };
        try
        {
            ProcessResult run = ProfiledProcess.RunAssembly(App,
                profiled ? ProfiledProcess.ProfiledEnvironment(Targets) : new Dictionary<string, string?>(),
                settings, TimeSpan.FromSeconds(60), "idle");
            Assert.True(run.ExitCode == 0 && run.Stdout.Contains("r2r.idle=true", StringComparison.Ordinal), run.ToString());
            string[] lines = File.ReadAllLines(file);
            Assert.True(lines.Length > 0, $"the JIT wrote no summary to {file}");
            string[] framework = lines.Where(l => l.Contains("JIT compiled ", StringComparison.Ordinal) &&
                                                  !l.Contains("JIT compiled AlvorKit.", StringComparison.Ordinal)).ToArray();
            list = string.Join('\n', lines);
            return framework.Length;
        }
        finally
        {
            File.Delete(file);
        }
    }

    // The READYTORUN_HEADER's flags and its sections' sizes by type, read from the file.
    private static (uint Flags, Dictionary<uint, int> Sections) ReadyToRunHeader(string path)
    {
        using var reader = new PEReader(File.OpenRead(path));
        DirectoryEntry native = reader.PEHeaders.CorHeader!.ManagedNativeHeaderDirectory;
        Assert.True(native.Size > 0, $"{path}: no ManagedNativeHeader (not ReadyToRun)");
        var header = reader.GetSectionData(native.RelativeVirtualAddress).GetReader();
        Assert.True(header.ReadUInt32() == 0x00525452, $"{path}: the native header is not 'RTR'");
        header.ReadUInt16();
        header.ReadUInt16();
        uint flags = header.ReadUInt32();
        int count = header.ReadInt32();
        var sections = new Dictionary<uint, int>();
        for (int i = 0; i < count; i++)
        {
            uint type = header.ReadUInt32();
            header.ReadUInt32();
            sections[type] = header.ReadInt32();
        }
        return (flags, sections);
    }
}
