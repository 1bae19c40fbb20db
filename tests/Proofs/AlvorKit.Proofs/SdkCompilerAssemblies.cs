using System.Runtime.CompilerServices;
using AlvorKit.Interception.Launcher.Watch;
using Xunit.Abstractions;
using Xunit.Sdk;

[assembly: Xunit.TestFramework("AlvorKit.Proofs.SdkCompilerAssemblies", "AlvorKit.Proofs")]

namespace AlvorKit.Proofs;

/// <summary>
/// The proofs compile with the .NET SDK's own C# compiler, as `alvorkit-intercept watch` does
/// (SdkCompiler): the Microsoft.CodeAnalysis assemblies of the SDK's Roslyn/bincore folder, which
/// are ReadyToRun, where the package's are IL only (the project builds against the package and
/// carries no copy of it: ExcludeAssets="runtime"). With the package's copy, the test process
/// JIT-compiled the compiler for every scenario it built (HotReloadScenario, NativeHostProofs).
/// xunit's own framework, but first the launcher's module initializer, which hooks the assembly
/// resolution: before the discovery loads the proofs' types, some of which name compiler types.
/// </summary>
public sealed class SdkCompilerAssemblies : XunitTestFramework
{
    public SdkCompilerAssemblies(IMessageSink messageSink)
        : base(messageSink) =>
        RuntimeHelpers.RunModuleConstructor(typeof(SdkCompiler).Module.ModuleHandle);
}
