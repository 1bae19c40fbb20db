using System.Reflection;
using System.Reflection.Emit;
using System.Text;
using AlvorKit.Interception;
using AlvorKit.Interception.Hooks;
using Xunit;
using Xunit.Abstractions;

// The test assembly may use what System.Private.CoreLib keeps internal (a reverse patch's rule; CoreCLR matches
// the attribute class by name: this assembly declares it).
[assembly: System.Runtime.CompilerServices.IgnoresAccessChecksTo("System.Private.CoreLib")]

namespace System.Runtime.CompilerServices
{
    [AttributeUsage(AttributeTargets.Assembly, AllowMultiple = true)]
    internal sealed class IgnoresAccessChecksToAttribute(string assemblyName) : Attribute
    {
        public string AssemblyName { get; } = assemblyName;
    }
}

namespace AlvorKit.Hooks.Tests
{
    /// <summary>Reverse patches: the stub's plan is the original's body re-emitted in the stub's module (no
    /// profiler: the plan is built and lowered, with its stack-type check), and what is refused before anything
    /// reaches the profiler.</summary>
    public sealed class ReversePatchTests(ITestOutputHelper output)
    {
        private static MethodInfo Stub(string name) => typeof(ForgeStubs).GetMethod(name)!;

        private GenerationPlan Plan(MethodBase original, string stub, HookMethod? transpiler = null)
        {
            GenerationPlan plan = ReversePatcher.Plan(original, Stub(stub), transpiler);
            plan.Lower();
            output.WriteLine(plan.ToString());
            return plan;
        }

        [Fact]
        public void TheStubGetsTheOriginalsInstructionsWithTheReceiverAsItsFirstArgument()
        {
            GenerationPlan plan = Plan(typeof(Forge).GetMethod(nameof(Forge.Heat))!, nameof(ForgeStubs.Heat));

            Assert.Same(Stub(nameof(ForgeStubs.Heat)), plan.Target);
            Assert.Equal(["ldarg.0", "ldfld", "ldarg.1", "mul", "ret"], plan.Instructions.Select(i => i.OpCode.Name));
            Assert.Equal("_heat", Assert.IsAssignableFrom<FieldInfo>(plan.Instructions[1].Operand).Name);
            // No IL map entry from the original's offsets: they mean nothing in the stub.
            Assert.All(plan.Instructions, i => Assert.Null(i.OriginalOffset));
        }

        [Fact]
        public void LocalsAndExceptionClausesAreCarriedOver()
        {
            GenerationPlan plan = Plan(typeof(Enemy).GetMethod(nameof(Enemy.Risky))!, nameof(ForgeStubs.Risky));

            Assert.Single(plan.ExceptionRegions);
            Assert.Equal(typeof(DivideByZeroException), plan.ExceptionRegions[0].CatchType);
            Assert.Equal(typeof(Enemy).GetMethod(nameof(Enemy.Risky))!.GetMethodBody()!.LocalVariables.Count, plan.Locals.Count);
        }

        [Fact]
        public void ABodyOfAnotherAssemblyIsRenamedThroughRelocationsOfTheStubsModule()
        {
            // StringBuilder.Length reads two internal fields of System.Private.CoreLib: this assembly ignores
            // access checks to it, and names the fields through MemberRefs it does not have yet.
            MethodInfo length = typeof(StringBuilder).GetProperty(nameof(StringBuilder.Length))!.GetMethod!;
            GenerationPlan plan = Plan(length, nameof(ForgeStubs.BuilderLength));

            Assert.Contains(plan.Instructions, i => i.Operand is FieldInfo f && f.DeclaringType == typeof(StringBuilder));
            Assert.True(plan.RelocationCount >= 2, plan.ToString());
            Assert.Contains("MemberRef", plan.ToString(), StringComparison.Ordinal);
        }

        [Fact]
        public void ATranspilerEditsTheCopiedBody()
        {
            GenerationPlan plan = Plan(typeof(Forge).GetMethod(nameof(Forge.Temper))!, nameof(ForgeStubs.Temper),
                typeof(TestTranspilers).GetMethod(nameof(TestTranspilers.TenToThousand))!);

            Assert.Contains(plan.Instructions, i => i.OpCode == OpCodes.Ldc_I4 && i.Operand is int and 1000);
        }

        [Fact]
        public void APrivateMemberOfTheStubsOwnAssemblyIsRefusedNamingIt()
        {
            // Forge._secret is private to Forge; ForgeStubs (same assembly, another class) may not read it.
            ReversePatchException e = Assert.Throws<ReversePatchException>(() =>
                ReversePatcher.Plan(typeof(Forge).GetMethod(nameof(Forge.Secret))!, Stub(nameof(ForgeStubs.Secret)), null));
            Assert.Equal(ReversePatchRefusal.InaccessibleMember, e.Kind);
            Assert.Equal("_secret", e.Member?.Name);
            Assert.Contains("FieldAccessException", e.Message, StringComparison.Ordinal);
            Assert.Contains("make it internal", e.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void AnInaccessibleMemberOfAnotherAssemblyNamesTheAttributeToAdd()
        {
            // HookMethod.Method reads its private backing field; this assembly ignores access checks only to
            // CoreLib (InternalsVisibleTo opens internals, not privates).
            ReversePatchException e = Assert.Throws<ReversePatchException>(() => ReversePatcher.Plan(
                typeof(HookMethod).GetProperty(nameof(HookMethod.Method))!.GetMethod!,
                Stub(nameof(ForgeStubs.HookMethodMethod)), null));
            Assert.Equal(ReversePatchRefusal.InaccessibleMember, e.Kind);
            Assert.IsAssignableFrom<FieldInfo>(e.Member);
            Assert.Contains("[assembly: System.Runtime.CompilerServices.IgnoresAccessChecksTo(\"AlvorKit.Interception\")]",
                e.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void TheAccessRuleFollowsIgnoresAccessChecksToAndVisibility()
        {
            Assembly self = typeof(ReversePatchTests).Assembly;
            HashSet<string> ignored = StubAccess.IgnoredBy(self);
            Assert.Contains("System.Private.CoreLib", ignored);
            FieldInfo chunk = typeof(StringBuilder).GetField("m_ChunkLength", BindingFlags.NonPublic | BindingFlags.Instance)!;
            Assert.Null(StubAccess.Denied(chunk, self, ignored));
            Assert.Same(chunk, StubAccess.Denied(chunk, self, []));
            Assert.Null(StubAccess.Denied(typeof(StringBuilder).GetMethod(nameof(StringBuilder.Clear))!, self, []));
            Assert.Null(StubAccess.Denied(typeof(Forge).GetMethod(nameof(Forge.Temper))!, self, []));
            // Internal to AlvorKit.Interception, which names this assembly in InternalsVisibleTo.
            Assert.Null(StubAccess.Denied(typeof(HookWeaver), self, []));
        }

        [Fact]
        public void AStubThatDoesNotFitIsRefusedWithTheDeclarationExpected()
        {
            MethodInfo plain = typeof(Forge).GetMethod(nameof(Forge.Plain))!;
            SignatureMismatchException r = Assert.Throws<SignatureMismatchException>(() =>
                ReversePatcher.Plan(plain, Stub(nameof(ForgeStubs.PlainWrongReturn)), null));
            Assert.Equal(SignatureMismatchKind.ReturnType, r.Kind);
            Assert.Contains("Expected: static int Plain(int x)", r.Message, StringComparison.Ordinal);

            SignatureMismatchException s = Assert.Throws<SignatureMismatchException>(() =>
                ReversePatcher.Plan(plain, Stub(nameof(ForgeStubs.NotStatic)), null));
            Assert.Equal(SignatureMismatchKind.NotStatic, s.Kind);

            SignatureMismatchException receiver = Assert.Throws<SignatureMismatchException>(() =>
                ReversePatcher.Plan(typeof(Forge).GetMethod(nameof(Forge.Temper))!, Stub(nameof(ForgeStubs.Plain)), null));
            Assert.Equal(SignatureMismatchKind.ParameterCount, receiver.Kind);
            Assert.Contains("Expected: static int Temper(Forge self, int x)", receiver.Message, StringComparison.Ordinal);
        }

        [Fact]
        public void AGenericOriginalAndTheOriginalAsItsOwnStubAreRefused()
        {
            ReversePatchException g = Assert.Throws<ReversePatchException>(() =>
                ReversePatcher.Plan(typeof(Box<int>).GetMethod(nameof(Box<int>.Get))!, Stub(nameof(ForgeStubs.Generic)), null));
            Assert.Equal(ReversePatchRefusal.GenericOriginal, g.Kind);

            MethodInfo plain = typeof(Forge).GetMethod(nameof(Forge.Plain))!;
            ReversePatchException self = Assert.Throws<ReversePatchException>(() => ReversePatcher.Plan(plain, plain, null));
            Assert.Equal(ReversePatchRefusal.StubIsOriginal, self.Kind);
        }

        [Fact]
        public void APatchClassDeclaresReversePatchesOnItsStubs()
        {
            DiscoveredReversePatch r = Assert.Single(ReversePatchDiscovery.Discover(typeof(ReverseStubClass)));
            Assert.Equal(typeof(Forge).GetMethod(nameof(Forge.Temper)), r.Original);
            Assert.Equal(nameof(ReverseStubClass.Temper), r.Stub.Name);
            Assert.Equal(nameof(ReverseStubClass.Edit), r.Transpiler?.Name);
            Assert.True(ReversePatchDiscovery.Declares(typeof(ReverseStubClass)));
            Assert.False(ReversePatchDiscovery.Declares(typeof(TranspilerPatchClass)));

            DiscoveredReversePatch classLevel = Assert.Single(ReversePatchDiscovery.Discover(typeof(ClassLevelReverseStub)));
            Assert.Equal(typeof(Forge).GetMethod(nameof(Forge.Plain)), classLevel.Original);
            Assert.Null(classLevel.Transpiler);
            Assert.Empty(ReversePatchDiscovery.Discover(typeof(TranspilerPatchClass)));
        }

        [Fact]
        public void AReversePatchStubWithoutAnOriginalOrWithAMissingTranspilerIsRefused()
        {
            HookBindingException none = Assert.Throws<HookBindingException>(() =>
                ReversePatchDiscovery.Discover(typeof(ReverseStubWithoutOriginal)));
            Assert.Equal(HookBindingKind.TargetNotFound, none.Kind);
            Assert.Contains("names no original", none.Message, StringComparison.Ordinal);

            HookBindingException missing = Assert.Throws<HookBindingException>(() =>
                ReversePatchDiscovery.Discover(typeof(ReverseStubWithMissingTranspiler)));
            Assert.Contains("Transpiler = \"Missing\"", missing.Message, StringComparison.Ordinal);
        }
    }
}
