using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.Loader;
using AlvorKit.Interception;
using AlvorKit.Interception.HotReload;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// The "hotreload" mode: the hot reload core end to end in a profiled process, for edits that
/// need only ABI 3.2 relocations. HotGame is built here with PersistedAssemblyBuilder
/// (<c>HotGame.Game.Value()</c> returning 1, <c>Twin()</c> returning 10), loaded from its file into the default context,
/// and rebuilds of it (other folders, same name) are applied through Interceptor.Reload.
/// </summary>
internal static class HotReloadCoreProof
{
    private static readonly TimeSpan Settle = TimeSpan.FromSeconds(5);

    private const string Name = "HotGame";

    public static HotReloadCoreReport Run()
    {
        string root = Directory.CreateTempSubdirectory("alvk-hotreload-proof-").FullName;
        try
        {
            return Steps(root);
        }
        finally
        {
            try
            {
                Directory.Delete(root, recursive: true);
            }
            catch (IOException)
            {
                // The loaded file may stay mapped; the system's temporary-file cleanup takes it.
            }
            catch (UnauthorizedAccessException)
            {
                // As above.
            }
        }
    }

    private static HotReloadCoreReport Steps(string root)
    {
        string original = Build(root, "v1", Name, body: il => Constant(il, 1));
        string constant = Build(root, "v2", Name, body: il => Constant(il, 2));
        // Math.Max(7, 2): System.Math is a type v1 never referenced (TYPE_REF + MEMBER_REF).
        string newCall = Build(root, "v3", Name, body: il =>
        {
            il.Emit(OpCodes.Ldc_I4_7);
            il.Emit(OpCodes.Ldc_I4_2);
            il.Emit(OpCodes.Call, typeof(Math).GetMethod(nameof(Math.Max), [typeof(int), typeof(int)])!);
            il.Emit(OpCodes.Ret);
        });
        string rude = Build(root, "v4", Name, body: il => Constant(il, 4), extraMethod: true);
        // One batch of two: Value() gets 3 and is applied first; Twin() calls System.Math::NoSuchMethod,
        // which the validator cannot know is missing and the profiler's worker finds missing.
        MethodBuilder missing = MissingCoreMethod();
        string failing = Build(root, "v5", Name, body: il => Constant(il, 3), twin: il =>
        {
            il.Emit(OpCodes.Call, missing);
            il.Emit(OpCodes.Ret);
        });
        string other = Build(root, "other", Name + "NotLoaded", body: il => Constant(il, 5));
        string otherLoaded = Build(root, "other1", Name + "Other", body: il => Constant(il, 1));
        string otherRebuilt = Build(root, "other2", Name + "Other", body: il => Constant(il, 2));

        Assembly game = AssemblyLoadContext.Default.LoadFromAssemblyPath(original);
        Func<int> value = game.GetType("HotGame.Game")!.GetMethod("Value")!.CreateDelegate<Func<int>>();
        Func<int> twinValue = game.GetType("HotGame.Game")!.GetMethod("Twin")!.CreateDelegate<Func<int>>();
        int before = value();
        Func<int> otherValue = AssemblyLoadContext.Default.LoadFromAssemblyPath(otherLoaded).GetType("HotGame.Game")!
            .GetMethod("Value")!.CreateDelegate<Func<int>>();

        using Interceptor interceptor = Interceptor.Open();
        HotReloader reload = interceptor.Reload;
        // A step that changes a body polls until the new value shows (a ReJIT takes effect at
        // the next call); a step that must change nothing calls for a while and needs every
        // call to give the value it gave before.
        ReloadStep Step(ReloadResult result, int expected, bool changes = true, Func<int>? of = null) =>
            new(result.Outcome.ToString(), result.Methods.Select(m => $"{m.Member}|{m.State}|{m.Difference}").ToList(),
                result.Refusals.Select(r => r.Message).ToList(), result.Summary,
                changes ? Patcher.PollFor(of ?? value, expected, Settle) : Patcher.Steady(of ?? value, expected, Settle / 10));

        ReloadStep constantStep = Step(reload.Apply(constant), 2);
        ReloadStep same = Step(reload.Apply(constant), 2, changes: false);
        ReloadStep newCallStep = Step(reload.Apply(newCall), 7);
        ReloadStep failed = Step(reload.Apply(failing), 7, changes: false);
        Polled<int> twinAfterFailure = Patcher.Steady(twinValue, 10, Settle / 10);
        ReloadStep rudeStep = Step(reload.Apply(rude), 7, changes: false);
        ReloadStep back = Step(reload.Apply(original), 1);
        ReloadStep notLoaded = Step(reload.Apply(other), 1, changes: false);
        ReloadStep notAllowlisted = Step(reload.Apply(otherRebuilt), 1, changes: false, of: otherValue);

        // The watched folder: v2 written as a temporary file and renamed into place.
        string drop = Path.Combine(root, "drop");
        var results = new BlockingCollection<ReloadResult>();
        ReloadResult watched;
        using (reload.WatchFolder(drop, results.Add))
        {
            File.Copy(constant, Path.Combine(drop, Name + ".dll.tmp"));
            File.Move(Path.Combine(drop, Name + ".dll.tmp"), Path.Combine(drop, Name + ".dll"));
            if (!results.TryTake(out watched!, TimeSpan.FromSeconds(20)))
                watched = new ReloadResult(Name, null, ReloadOutcome.Failed, [], [], TimeSpan.Zero, TimeSpan.Zero);
        }
        ReloadStep watchedStep = Step(watched, 2);
        string resultFile = Path.Combine(drop, Name + ".result.txt");
        string? resultText = File.Exists(resultFile) ? File.ReadAllText(resultFile) : null;

        ReloadStep reverted = Step(reload.RevertAll(), 1);
        return new HotReloadCoreReport(before, constantStep, same, newCallStep, failed, twinAfterFailure, rudeStep, back, notLoaded, notAllowlisted,
                                       watchedStep,
                                       resultText, reverted, reload.Owner.Patches.Count);
    }

    /// <summary>System.Math::NoSuchMethod() : int, from a stand-in System.Private.CoreLib built
    /// here: a rebuild that calls it references a member the running runtime does not have.</summary>
    private static MethodBuilder MissingCoreMethod()
    {
        var core = new PersistedAssemblyBuilder(new AssemblyName("System.Private.CoreLib"), typeof(object).Assembly);
        TypeBuilder math = core.DefineDynamicModule("System.Private.CoreLib").DefineType("System.Math",
            TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed);
        MethodBuilder missing = math.DefineMethod("NoSuchMethod", MethodAttributes.Public | MethodAttributes.Static,
                                                  typeof(int), Type.EmptyTypes);
        Constant(missing.GetILGenerator(), 0);
        math.CreateType();
        return missing;
    }

    private static void Constant(ILGenerator il, int value)
    {
        il.Emit(OpCodes.Ldc_I4, value);
        il.Emit(OpCodes.Ret);
    }

    /// <summary>`folder/version/name.dll`: public static class HotGame.Game with int Value()
    /// (the body given) and, for a rude edit, one more method.</summary>
    private static string Build(string root, string version, string name, Action<ILGenerator> body,
                                bool extraMethod = false, Action<ILGenerator>? twin = null)
    {
        var assembly = new PersistedAssemblyBuilder(new AssemblyName(name) { Version = new Version(1, 0, 0, 0) },
                                                    typeof(object).Assembly);
        ModuleBuilder module = assembly.DefineDynamicModule(name);
        TypeBuilder type = module.DefineType("HotGame.Game",
            TypeAttributes.Public | TypeAttributes.Abstract | TypeAttributes.Sealed | TypeAttributes.Class);
        MethodBuilder method = type.DefineMethod("Value", MethodAttributes.Public | MethodAttributes.Static,
                                                 typeof(int), Type.EmptyTypes);
        method.SetImplementationFlags(MethodImplAttributes.NoInlining);
        body(method.GetILGenerator());
        MethodBuilder twinMethod = type.DefineMethod("Twin", MethodAttributes.Public | MethodAttributes.Static,
                                                     typeof(int), Type.EmptyTypes);
        twinMethod.SetImplementationFlags(MethodImplAttributes.NoInlining);
        (twin ?? (il => Constant(il, 10)))(twinMethod.GetILGenerator());
        if (extraMethod)
        {
            MethodBuilder extra = type.DefineMethod("Extra", MethodAttributes.Public | MethodAttributes.Static,
                                                    typeof(int), Type.EmptyTypes);
            Constant(extra.GetILGenerator(), 9);
        }
        type.CreateType();
        string folder = Path.Combine(root, version);
        Directory.CreateDirectory(folder);
        string path = Path.Combine(folder, name + ".dll");
        assembly.Save(path);
        return path;
    }
}
