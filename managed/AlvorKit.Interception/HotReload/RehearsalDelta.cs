using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// The update the warm-up applies to AlvorKit's own rehearsal method (<see cref="PatchRehearsal"/>),
/// made from the loaded rehearsal assembly's metadata as the C# compiler makes a delta of it: an
/// Edit and Continue generation (its Module row with a new generation id, the method's MethodDef
/// row with a new body, the EncLog and EncMap, the minimal-delta tables) whose body is
/// <c>ldstr "rehearsed"; ret</c>, the string new to the module (in the delta's own #US heap).
/// So the warm-up runs a real update's whole path on it: the delta read, the translation of a
/// body that names a new string, the difference worked out, the validation, the batch, the commit.
/// </summary>
internal static class RehearsalDelta
{
    /// <summary>The update of <paramref name="target"/> (the rehearsal method); null when the
    /// loaded assembly's metadata cannot be read in place or the delta cannot be made of it.</summary>
    public static ReloadDelta? Of(MethodInfo target)
    {
        try
        {
            return Make(target);
        }
        catch (Exception e) when (e is BadImageFormatException or ArgumentException or InvalidOperationException or
                                      IndexOutOfRangeException)
        {
            return null; // only a warm-up: the first update pays instead
        }
    }

    private static unsafe ReloadDelta? Make(MethodInfo target)
    {
        Assembly assembly = target.Module.Assembly;
        if (!assembly.TryGetRawMetadata(out byte* blob, out int length))
            return null;
        var baseline = new MetadataReader(blob, length);
        var method = (MethodDefinitionHandle)MetadataTokens.EntityHandle(target.MetadataToken);
        MethodDefinition row = baseline.GetMethodDefinition(method);
        ModuleDefinition module = baseline.GetModuleDefinition();

        // The delta's heaps continue the loaded module's (its #GUID heap is written whole: the
        // module's MVID, then the new generation's id).
        var metadata = new MetadataBuilder(userStringHeapStartOffset: baseline.GetHeapSize(HeapIndex.UserString),
                                           stringHeapStartOffset: baseline.GetHeapSize(HeapIndex.String),
                                           blobHeapStartOffset: baseline.GetHeapSize(HeapIndex.Blob));
        metadata.AddModule(1, metadata.GetOrAddString(baseline.GetString(module.Name)), metadata.GetOrAddGuid(baseline.GetGuid(module.Mvid)),
                           metadata.GetOrAddGuid(Guid.NewGuid()), default);

        // The IL delta: the body at an offset past a first word (an offset of 0 is no body).
        var il = new BlobBuilder();
        il.WriteInt32(0);
        var code = new InstructionEncoder(new BlobBuilder());
        code.LoadString(metadata.GetOrAddUserString(PatchRehearsal.Replaced));
        code.OpCode(ILOpCode.Ret);
        int body = new MethodBodyStreamEncoder(il).AddMethodBody(code);

        // Its row written again, as the compiler writes an updated method's: its name and signature
        // in the delta's own heaps.
        metadata.AddMethodDefinition(row.Attributes, row.ImplAttributes, metadata.GetOrAddString(baseline.GetString(row.Name)),
                                     metadata.GetOrAddBlob(baseline.GetBlobBytes(row.Signature)), body,
                                     MetadataTokens.ParameterHandle(1));
        metadata.AddEncLogEntry(method, EditAndContinueOperation.Default);
        metadata.AddEncMapEntry(method);

        var image = new BlobBuilder();
        new MetadataRootBuilder(metadata, baseline.MetadataVersion, suppressValidation: true).Serialize(image, 0, 0);
        return new ReloadDelta(assembly.GetName().Name ?? PatchRehearsal.AssemblyName, assembly.ManifestModule.ModuleVersionId,
                               image.ToArray(), il.ToArray());
    }
}
