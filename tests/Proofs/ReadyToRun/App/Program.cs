using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using AlvorKit.Interception;
using AlvorKit.Proofs.R2R.CrossEarly;
using AlvorKit.Proofs.R2R.CrossLate;
using AlvorKit.Proofs.R2R.Targets;

namespace AlvorKit.Proofs.R2R;

// ReadyToRun code under the profiler: callers that inline a patched target in their
// precompiled code, in its own assembly and (crossgen2 --opt-cross-module) in two others, one
// loaded only after the patch; a generic target's caller whose instantiation over another
// assembly's type is precompiled in that assembly's image; and a [NonVersionable] target refused. Writes "r2r.<key>=<value>"
// lines; ReadyToRunProofs asserts on them. "idle" starts and exits (the start-up JIT counts).
public static class Program
{
    private const int Input = 7;

    public static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "idle")
        {
            Console.WriteLine("r2r.idle=true");
            return 0;
        }
        if (args.Length != 1 || args[0] != "patch")
        {
            Console.Error.WriteLine("usage: AlvorKit.Proofs.R2R idle|patch");
            return 64;
        }
        Patch();
        return 0;
    }

    public static int TargetReplacement(int x) => x * 2 + 500;

    public static int FixedReplacement(int x) => x + 900;

    private static void Write(string key, object value) =>
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"r2r.{key}={value}"));

    // Methods this thread JIT-compiled during its first call of `method` (a delegate straight to
    // it, nothing else to compile): 0 when it ran precompiled code.
    private static long Jitted(Func<int, int> method, out int value)
    {
        long before = System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: true);
        value = method(Input);
        return System.Runtime.JitInfo.GetCompiledMethodCount(currentThread: true) - before;
    }

    // Separate and not inlined, so AlvorKit.Proofs.R2R.CrossLate loads at its first call.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int CallCrossLate() => LateCallers.Call(Input);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int CallCrossLateGeneric() => LateCallers.CallGeneric(Input);

    private static bool CrossLateLoaded() =>
        AppDomain.CurrentDomain.GetAssemblies().Any(a => a.GetName().Name == "AlvorKit.Proofs.R2R.CrossLate");

    private static void Patch()
    {
        using Interceptor interceptor = Interceptor.Open();
        Write("patching", interceptor.IsPatchingEnabled);
        Jitted(x => x, out _); // the counter's own first use

        // Before the patch: the target's own caller and a cross-module caller run.
        Write("before.caller.jitted", Jitted(R2RTargets.Caller, out int caller));
        Write("before.caller", caller);
        Write("before.crossEarly.jitted", Jitted(EarlyCallers.Call, out int crossEarly));
        Write("before.crossEarly", crossEarly);
        Write("before.genericEarly.jitted", Jitted(EarlyCallers.CallGeneric, out int genericEarly));
        Write("before.genericEarly", genericEarly);
        Write("before.crossLate.loaded", CrossLateLoaded());

        MethodInfo target = typeof(R2RTargets).GetMethod(nameof(R2RTargets.Target))!;
        Write("target.traits", interceptor.Describe(target).Traits);
        Patch patch = interceptor.Install(target, typeof(Program).GetMethod(nameof(TargetReplacement))!);
        Write("patched.caller", R2RTargets.Caller(Input));
        Write("patched.lateCaller", R2RTargets.LateCaller(Input));
        Write("patched.crossEarly", EarlyCallers.Call(Input));
        Write("patched.crossLate.loadedBefore", CrossLateLoaded());
        Write("patched.crossLate", CallCrossLate());
        Write("patched.genericEarly", EarlyCallers.CallGeneric(Input));
        Write("patched.genericLate", CallCrossLateGeneric());
        Write("patched.inliners", patch.ReadTelemetry().InlinersReJITted);

        patch.Remove();
        Write("removed.caller", R2RTargets.Caller(Input));
        Write("removed.lateCaller", R2RTargets.LateCaller(Input));
        Write("removed.crossEarly", EarlyCallers.Call(Input));
        Write("removed.crossLate", CallCrossLate());
        Write("removed.genericEarly", EarlyCallers.CallGeneric(Input));
        Write("removed.genericLate", CallCrossLateGeneric());

        // [NonVersionable]: described with its trait, refused with its status, left as it was.
        MethodInfo fixedTarget = typeof(R2RTargets).GetMethod(nameof(R2RTargets.Fixed))!;
        Write("fixed.traits", interceptor.Describe(fixedTarget).Traits);
        try
        {
            interceptor.Install(fixedTarget, typeof(Program).GetMethod(nameof(FixedReplacement))!);
            Write("fixed.install", "Ok");
        }
        catch (PatchException e)
        {
            Write("fixed.install", e.Status);
            Write("fixed.message", e.Message.ReplaceLineEndings(" "));
        }
        Write("fixed.after", R2RTargets.Fixed(Input));

        ProfilerStatus status = interceptor.ReadStatus();
        Write("status.imagesRefused", status.PrecompiledImagesRefused);
        Write("status.refusalsOverflowed", status.PrecompiledRefusalsOverflowed);
        Write("status.methodsRefused", status.PrecompiledMethodsRefused);
    }
}
