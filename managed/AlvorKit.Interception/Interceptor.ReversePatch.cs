using System.Reflection;
using AlvorKit.Interception.Hooks;
using AlvorKit.Interception.Internal;

namespace AlvorKit.Interception;

public sealed partial class Interceptor
{
    /// <summary>
    /// A reverse patch (Harmony's HarmonyReversePatch, ReversePatchType.Original): from its next call on,
    /// <paramref name="stub"/> runs <paramref name="original"/>'s own IL (optionally edited by
    /// <paramref name="transpiler"/>), so a mod can call the game's original code, private members included,
    /// whatever hooks are woven into the original. The stub's body is replaced by a generation held by
    /// <paramref name="owner"/>: <see cref="Patch.Remove"/> (or disposing the owner) gives the stub its own body back.
    /// </summary>
    /// <remarks>
    /// <para><b>The stub</b>: a static, non-generic method with a body (<c>=&gt; throw null!</c> will do) that takes
    /// the original's receiver first when the original is an instance method (the declaring class, or
    /// <c>ref T</c> for a struct), then exactly the original's parameter types, and returns the original's return
    /// type (<see cref="SignatureMismatchException"/> otherwise, with the declaration expected). Its assembly must
    /// be one ALVORKIT_INTERCEPTION_MODULES names (the generation patches the stub; the original's module need not
    /// be patchable).</para>
    /// <para><b>Retargeting</b>: the original's instructions are re-emitted in the stub's module: every type,
    /// method, field and string the body names becomes a token of the stub's module (its own definitions, or a
    /// TypeRef/MemberRef/MethodSpec/user string the generation adds, through an AssemblyRef the module has or one
    /// it adds for the stub's AssemblyLoadContext); locals and exception clauses are carried over; arguments stay
    /// as they are.</para>
    /// <para><b>Access</b>: the JIT checks the stub's new body as code of the stub's assembly. A body that uses a
    /// private or internal member of the game (most do) needs <c>[assembly: IgnoresAccessChecksTo("Game")]</c> in
    /// the stub's assembly, with the attribute class (System.Runtime.CompilerServices.IgnoresAccessChecksToAttribute)
    /// declared by the mod itself: CoreCLR honours it for an ordinary compiled assembly (the proofs call a stub that
    /// reads a private field and a private method this way, and one without it throws FieldAccessException). The
    /// access rule is checked before anything reaches the profiler (<see cref="ReversePatchRefusal.InaccessibleMember"/>,
    /// naming the member and the attribute to add); private and protected members of the stub's own assembly
    /// cannot be opened that way.</para>
    /// <para><b>Original vs Snapshot</b>: Harmony's ReversePatchType.Snapshot copies the original with the patches
    /// applied at that moment. Here the original's current body is a generation the profiler holds (the woven body
    /// of every owner's hooks, or another owner's plan), which changes as owners come and go; a reverse patch always
    /// copies the original's own IL (Original). To call the patched behaviour, call the original itself.</para>
    /// <para><b>Not supported</b>: generic originals (or methods of generic types), and varargs originals or call
    /// sites (<see cref="PlanException"/>).</para>
    /// </remarks>
    /// <param name="original">The method whose original body the stub receives (not generic).</param>
    /// <param name="stub">The static stub whose body is replaced.</param>
    /// <param name="transpiler">Edits the copied instructions first (as for <see cref="Hook"/>: it takes the
    /// instructions, and optionally the stub's <see cref="GenerationPlan"/> and the original as MethodBase); null: none.</param>
    /// <param name="owner">The owner scope; null: <see cref="DefaultOwner"/>. Disposing it restores the stub.</param>
    /// <returns>The patch on the stub (<see cref="Patch.Target"/> is the stub).</returns>
    /// <exception cref="ReversePatchException">The stub's module is not patchable, the original is generic or has
    /// no body, or the body uses what the stub's assembly may not access: nothing was applied.</exception>
    /// <exception cref="SignatureMismatchException">The stub's signature does not fit the original.</exception>
    /// <exception cref="HookBindingException">The transpiler's signature does not fit.</exception>
    /// <exception cref="TranspilerException">The transpiler threw, or made a body that is not valid.</exception>
    /// <exception cref="PlanException">The body cannot be re-emitted in the stub's module.</exception>
    /// <exception cref="InterceptionUnavailableException">The profiler refuses patch commands.</exception>
    /// <exception cref="PatchException">The profiler refused or failed the generation.</exception>
    public Patch ReversePatch(MethodBase original, MethodInfo stub, HookMethod? transpiler = null,
        PatchOwner? owner = null)
    {
        ArgumentNullException.ThrowIfNull(original);
        ArgumentNullException.ThrowIfNull(stub);
        ThrowIfDisposed();
        EnsurePatchingEnabled();
        CheckStubModule(original, stub);
        return Apply(ReversePatcher.Plan(original, stub, transpiler), owner);
    }

    /// <summary>The stub is what the generation patches: its assembly must be allowed.</summary>
    private void CheckStubModule(MethodBase original, MethodInfo stub)
    {
        string allowed = PatchableModules;
        string name = stub.Module.Assembly.GetName().Name ?? stub.Module.Name;
        if (allowed == "*" ||
            allowed.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
                .Contains(name, StringComparer.OrdinalIgnoreCase))
            return;
        throw new ReversePatchException(ReversePatchRefusal.StubModuleNotPatchable, original, stub, null,
            $"The reverse-patch stub {Names.Of(stub)} is in {name}, which {Setup.ModulesVariable} does not name " +
            $"(it is '{allowed}'): a reverse patch replaces the STUB's body, so the stub's assembly must be patchable. " +
            $"Add '{name}' to {Setup.ModulesVariable} before the process starts (for example " +
            $"{Setup.ModulesVariable}={(allowed.Length == 0 ? "" : allowed + ";")}{name}).");
    }
}
