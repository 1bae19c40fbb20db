using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

// The proof host: launched by the proofs (and the demo) with or without the profiler's
// environment. It reports, as one JSON line on stdout, what it can see from inside: each mode's
// report record (tests/Proofs/Reports), written by ReportJson.
//   status  - whether the library is mapped, and the attached profiler's status
//   platform - the RID, architecture and OS the process runs as (an emulated one's, under
//             qemu-user or Wine), with the status
//   demo    - the same, for a person to read
//   describe - alvk_describe_method against System.Reflection.Metadata, and its refusals
//   lifecycle - install, replace and remove on a hot method, with the telemetry of each step
//   inlining withinliners|fallback - patch a method a tier-1 caller inlined
//   inlinesites static|class|struct|final|cross|crossClass|crossTyped - hooks and a replacement on a method the JIT inlines (a
//             static method, a class's instance method called through callvirt, a struct's instance
//             method, a class's implicit interface implementation called through the class, a
//             static method and a class's instance method of another assembly, and one whose
//             signature names a type, whose caller keeps the call):
//             its hot caller's values and JIT listing before, hooked, after the hook's removal,
//             replaced whole, after that removal (InlineSiteProof; run with DOTNET_JitDisasm=<the
//             kind's caller> and DOTNET_JitStdOutFile)
//   inlinesites firstcall - hooks and a replacement on methods the JIT inlines (static, a class's and
//             a struct's instance method), put in place before each hot caller is first called, and
//             a hook whose caller ran once before it (Tier0, tiering on), hooks whose carrier is
//             refused (virtual, generic, too big); the callers' values, JIT listings and carrier
//             telemetry while patched and after the removals (InlineSiteFirstCallProof)
//   inlinercount - the managed API's inliner count: two targets patched one after the other, each
//             inlined by its own hot caller and both by a third; each patch counts its own inliners
//   removal nested-inner|nested-outer|caller - a removal undoes only its own patch: two nested
//             patches removed in either order; and a caller's JIT listings before, during and
//             after a patch of the method it inlines (RemovalProof)
//   dispatch - the exact-dispatch matrix: every shape installed, called, checked, removed
//   dispatchapi - the managed API's dispatch path per install and replace (direct call, calli
//             with its reason, PreferCalli), as the telemetry and Patch.ToString say
//   owners  - two owners on one patch, and a stranger's refused removal
//   badinput - every refused patch input, and the target unchanged after each
//   stress  - 1,000 install/replace/remove cycles on four threads while a caller runs
//   generations - method generations: IL bodies with relocations of every kind, generic
//             targets, a generation the JIT rejects, stale chains and refused submissions
//   originalplans - GenerationPlan.FromOriginal: original bodies edited and applied, and ApplyMany
//   members - generations naming members that do not exist (refused before any ReJIT), and
//             members found only on base types (accepted)
//   allocations countonly|sampled|full-storage|off [dir] - allocation capture windows
//             around known allocations, exported to speedscope, folded and pprof files in dir
//   sampling windows|cycles|threads|exact|flag - sampled allocation profiling: estimates
//             against known allocations, 1,000-window cycles, cross-thread End, exact mode and a
//             malformed setting (SampledCaptureProof)
//   api     - the managed API (AlvorKit.Interception): Interceptor.Open, install/replace/remove,
//             owner scopes, signature mismatches, symbolic generation plans
//   apiconcurrency - the API's commands from two threads at once, the Task-returning commands,
//             cancellation, and statuses in caught exceptions
//   commands - command identity: waits answer for one command; refused calls take no ID
//   memory [n] - n replacements of one patch (default 2000) and new signatures: what stays bounded
//   modules plugin|collectible|raw - one assembly loaded in the default context and in a
//             plugin's (non-collectible, or collectible): each copy patched on its own through
//             the managed API, the collectible copy refused; and the raw ABI's module identity
//   queuefull - every command kind refused with QUEUE_FULL while the queue is provably full, and
//             nothing changed by the refusals (needs AlvorKit.Proofs.Heavy in the allowlist)
//   recycling - the patch table full of ended patches, recycled oldest first; stale handles
//   exit return|environment - the process ends (Main returns 3, Environment.Exit(4)) with the
//             queue full while four threads call every export
//   mixedstress [threads] [commands per thread] [targets] - mixed commands from many threads
//             on many targets while two threads call them (default 8 10000 50)
//   submitstorm [threads] [submits per thread] - generation submits as fast as the queue takes
//             them (default 4 2000), for the AddressSanitizer build
//   hotreload <script.json> - a game built by the proof (ReloadCore.dll), loaded from its file,
//             and the updates the script names applied through Interceptor.Reload step by step,
//             each followed by polling the game's probe methods; needs ReloadCore in the allowlist
//   scale batch|refused|bound - the patch table at scale: 1,000 targets in one batch, batches
//             refused whole, single installs up to the table's bound (ScaleProof)
//   hooks   - prefixes, postfixes and finalizers from AlvorKit.Proofs.HookMod's patch classes
//             woven around HookTargets: values before, hooked and after removal (HookProof)
//   transpile - transpilers composed with hooks around TranspileTargets, and reverse patches of
//             Vault into stubs of AlvorKit.Proofs.HookMod (TranspileProof); needs HookMod and
//             Replacements in the allowlist
//   harmony - a mod written only against AlvorKit.Interception.HarmonyLib (AlvorKit.Proofs.HarmonyMod)
//             patches and unpatches HarmonyGame step by step: values after each step (HarmonyProof)
//   patchclasses - the core API's PatchAllUncategorized, PatchCategory and PatchAll of core patch classes
//             with TargetMethods, Prepare, Cleanup and whole types: values after each step (CorePatchClassProof)
//   relocations - __args on a 33-parameter method, 1,000 distinct relocations, one relocation
//             on three operands, and the relocation bound (RelocationProof)
//   memberkinds - hooks on a static constructor, iterator and async MoveNext, a finalizer and an
//             event's add accessor (MemberKindProof)
//   infix   - inner prefixes and postfixes around calls inside InfixTargets, from
//             AlvorKit.Proofs.HookMod (InfixProof); needs HookMod in the allowlist
//   idle    - does nothing (the launch-time benchmark's workload)
string mode = args.Length > 0 ? args[0] : "status";
switch (mode)
{
    case "status":
        return Print(Status());
    case "platform":
        return Print(new PlatformReport(
            System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier,
            System.Runtime.InteropServices.RuntimeInformation.ProcessArchitecture.ToString(),
            OperatingSystem.IsWindows() ? "Windows" : OperatingSystem.IsLinux() ? "Linux" : OperatingSystem.IsMacOS() ? "macOS" : "other",
            System.Runtime.InteropServices.RuntimeInformation.OSDescription,
            PlatformReport.ProfilerPathVariableNames.ToDictionary(v => v, Environment.GetEnvironmentVariable),
            Status()));
    case "demo":
        StatusReport report = Status();
        Console.WriteLine(ReportJson.WriteIndented(report));
        return report.Error is null ? 0 : 1;
    case "describe":
        return Print(AlvorKit.Proofs.Host.DescribeProof.Run());
    case "lifecycle":
        return Print(AlvorKit.Proofs.Host.LifecycleProof.Run());
    case "inlining" when args.Length == 2 && args[1] is "withinliners" or "fallback":
        return Print(AlvorKit.Proofs.Host.InliningProof.Run(fallback: args[1] == "fallback"));
    case "inlinesites" when args.Length == 2 && args[1] is "static" or "class" or "struct" or "final" or "cross" or "crossClass" or "crossTyped":
        return Print(AlvorKit.Proofs.Host.InlineSiteProof.Run(args[1]));
    case "inlinesites" when args.Length == 2 && args[1] == "firstcall":
        return Print(AlvorKit.Proofs.Host.InlineSiteFirstCallProof.Run());
    case "inlinercount":
        return Print(AlvorKit.Proofs.Host.InlinerCountProof.Run());
    case "removal" when args.Length == 2 && args[1] is "nested-inner" or "nested-outer":
        return Print(AlvorKit.Proofs.Host.RemovalProof.Nested(innerFirst: args[1] == "nested-inner"));
    case "removal" when args.Length == 2 && args[1] == "caller":
        return Print(AlvorKit.Proofs.Host.RemovalProof.Caller());
    case "dispatch":
        return Print(AlvorKit.Proofs.Host.DispatchProof.Run());
    case "dispatchapi":
        return Print(AlvorKit.Proofs.Host.DispatchApiProof.Run());
    case "owners":
        return Print(AlvorKit.Proofs.Host.OwnersProof.Run());
    case "badinput":
        return Print(AlvorKit.Proofs.Host.BadInputProof.Run());
    case "stress":
        return Print(AlvorKit.Proofs.Host.StressProof.Run());
    case "commands":
        return Print(AlvorKit.Proofs.Host.CommandsProof.Run());
    case "memory":
        return Print(AlvorKit.Proofs.Host.MemoryProof.Run(args.Length > 1 ? int.Parse(args[1]) : 2000));
    case "hookgenericsowners" when args.Length == 2:
        return AlvorKit.Proofs.Host.HookGenericsAndOwnersProof.Print(args[1]);
    case "originalplans":
        return Print(AlvorKit.Proofs.Host.OriginalPlanProof.Run());
    case "generations":
        return Print(AlvorKit.Proofs.Host.GenerationsProof.Run());
    case "assemblyrefbatches":
        return Print(AlvorKit.Proofs.Host.AssemblyRefAndBatchProof.Run());
    case "literaltyperelocations":
        return Print(AlvorKit.Proofs.Host.LiteralAndTypeRelocationProof.Run());
    case "members":
        return Print(AlvorKit.Proofs.Host.MembersProof.Run());
    case "allocations" when args.Length is 2 or 3:
        return Print(AlvorKit.Proofs.Host.AllocationsProof.Run(args[1], args.Length == 3 ? args[2] : null));
    case "sampling" when args.Length == 2 && args[1] == "windows":
        return Print(AlvorKit.Proofs.Host.SampledCaptureProof.Windows());
    case "sampling" when args.Length == 2 && args[1] == "cycles":
        return Print(AlvorKit.Proofs.Host.SampledCaptureProof.Cycles());
    case "sampling" when args.Length == 2 && args[1] == "threads":
        return Print(AlvorKit.Proofs.Host.SampledCaptureProof.Threads());
    case "sampling" when args.Length == 2 && args[1] == "exact":
        return Print(AlvorKit.Proofs.Host.SampledCaptureProof.Exact());
    case "sampling" when args.Length == 2 && args[1] == "flag":
        return Print(AlvorKit.Proofs.Host.SampledCaptureProof.Flag());
    case "api":
        return Print(AlvorKit.Proofs.Host.ApiProof.Run());
    case "apiconcurrency":
        return Print(AlvorKit.Proofs.Host.ApiConcurrencyProof.Run());
    case "modules" when args.Length == 2 && args[1] is "plugin" or "collectible":
        return args[1] == "plugin"
            ? Print(AlvorKit.Proofs.Host.ModulesProof.PluginPattern())
            : Print(AlvorKit.Proofs.Host.ModulesProof.CollectibleCopy());
    case "modules" when args.Length == 2 && args[1] == "loadorder":
        return Print(AlvorKit.Proofs.Host.ModuleLoadOrderProof.Run());
    case "modules" when args.Length == 2 && args[1] == "raw":
        return Print(AlvorKit.Proofs.Host.ModulesRawProof.Run());
    case "queuefull":
        return Print(AlvorKit.Proofs.Host.QueueFullProof.Run());
    case "recycling":
        return Print(AlvorKit.Proofs.Host.RecyclingProof.Run());
    case "exit" when args.Length == 2 && args[1] is "return" or "environment" or "return-sampled" or "environment-sampled":
        return AlvorKit.Proofs.Host.ExitProof.Run(args[1]);
    case "mixedstress" when args.Length <= 4 && args.Skip(1).All(a => int.TryParse(a, out int n) && n > 0):
        return Print(AlvorKit.Proofs.Host.MixedStressProof.Run(
            args.Length > 1 ? int.Parse(args[1]) : 8,
            args.Length > 2 ? int.Parse(args[2]) : 10_000,
            args.Length > 3 ? int.Parse(args[3]) : 50));
    case "submitstorm" when args.Length <= 3 && args.Skip(1).All(a => int.TryParse(a, out int n) && n > 0):
        return Print(AlvorKit.Proofs.Host.SubmitStormProof.Run(
            args.Length > 1 ? int.Parse(args[1]) : 4,
            args.Length > 2 ? int.Parse(args[2]) : 2000));
    case "hotreload" when args.Length == 2:
        return Print(AlvorKit.Proofs.Host.HotReloadCoreProof.Run(args[1]));
    case "dropfolder" when args.Length == 4 && !OperatingSystem.IsWindows():
        return Print(AlvorKit.Proofs.Host.DropFolderProof.Run(args[1], args[2], args[3]));
    case "scale" when args.Length == 2 && args[1] == "batch":
        return Print(AlvorKit.Proofs.Host.ScaleProof.Batch());
    case "scale" when args.Length == 2 && args[1] == "refused":
        return Print(AlvorKit.Proofs.Host.ScaleProof.Refused());
    case "scale" when args.Length == 2 && args[1] == "bound":
        return Print(AlvorKit.Proofs.Host.ScaleProof.Bound());
    case "hooks":
        return Print(AlvorKit.Proofs.Host.HookProof.Run());
    case "transpile":
        return Print(AlvorKit.Proofs.Host.TranspileProof.Run());
    case "hookbinding":
        return Print(AlvorKit.Proofs.Host.BindingProof.Run());
    case "harmony":
        return Print(AlvorKit.Proofs.Host.HarmonyProof.Run());
    case "patchclasses":
        return Print(AlvorKit.Proofs.Host.CorePatchClassProof.Run());
    case "relocations":
        return Print(AlvorKit.Proofs.Host.RelocationProof.Run());
    case "memberkinds":
        return Print(AlvorKit.Proofs.Host.MemberKindProof.Run());
    case "infix":
        return Print(AlvorKit.Proofs.Host.InfixProof.Run());
    case "idle":
        return 0;
    default:
        Console.Error.WriteLine($"unknown mode '{string.Join(' ', args)}'; expected status, platform, demo, describe, " +
            "lifecycle, inlining withinliners|fallback, inlinesites static|class|struct|final|cross|crossClass|crossTyped|firstcall, inlinercount, removal nested-inner|nested-outer|caller, dispatch, dispatchapi, owners, badinput, stress, generations, members, allocations <variant> [dir], " +
            "sampling windows|cycles|threads|exact|flag, api, " +
            "commands, memory [n], modules plugin|collectible|raw, queuefull, recycling, exit return|environment, " +
            "mixedstress [threads] [commands] [targets], submitstorm [threads] [submits], hotreload, dropfolder <game> <update> <value>, " +
            "scale batch|refused|bound, hooks, transpile, hookbinding, harmony, patchclasses, relocations, infix, memberkinds or idle");
        return 64;
}

// A mode's report, as the one JSON line the proofs read.
static int Print<T>(T report)
{
    Console.WriteLine(ReportJson.Write(report));
    return 0;
}

static StatusReport Status()
{
    IReadOnlyList<string> mappings = ProfilerMappings();
    try
    {
        ProfilerLibrary library = ProfilerLibrary.Open();
        AlvkStatus rc = library.GetRuntimeStatus(out AlvkRuntimeStatus s);
        var status = new RuntimeStatusReport(
            s.Attached,
            s.StartupStatus.ToString(),
            library.StatusString(s.StartupStatus),
            s.ProfilerInfoVersion,
            s.EventMaskLow,
            s.EventMaskHigh,
            s.RuntimeType,
            $"{s.RuntimeMajor}.{s.RuntimeMinor}.{s.RuntimeBuild}.{s.RuntimeQfe}",
            s.RuntimeVersion,
            s.AllowlistKind.ToString(),
            s.AllowlistCount,
            s.Allowlist,
            s.AllocationProfiling,
            s.WorkerAlive,
            s.WorkerInitHResult,
            s.QueueCapacity,
            s.QueueDepth,
            s.CommandsCompleted);
        return new StatusReport(mappings, library.Path, library.VersionNumber,
            ProfilerLibrary.MajorOf(library.VersionNumber), rc.ToString(), status, null, null);
    }
    catch (ProfilerUnavailableException e)
    {
        return new StatusReport(mappings, null, null, null, null, null, e.Reason.ToString(), e.Message);
    }
}

// How many distinct files named like the profiler library are mapped into this process
// (Linux: /proc/self/maps). One means CoreCLR's instance and ours are the same.
static IReadOnlyList<string> ProfilerMappings()
{
    var files = new SortedSet<string>(StringComparer.Ordinal);
    if (File.Exists("/proc/self/maps"))
    {
        foreach (string line in File.ReadLines("/proc/self/maps"))
        {
            int slash = line.IndexOf('/');
            if (slash >= 0 && line.Contains("alvorkit_interception_profiler", StringComparison.Ordinal))
                files.Add(line[slash..]);
        }
    }
    return [.. files];
}
