namespace AlvorKit.Interception.HotReload;

/// <summary>
/// Refusals of compiler-generated members that do not map (a lambda, closure class or state
/// machine added, removed or reshaped), named after the user method they belong to when the
/// generated name shows it: "Game.Program+&lt;&gt;c.&lt;Main&gt;b__0_1()" and
/// "Game.Program+&lt;Run&gt;d__3.&lt;x&gt;5__2" belong to Game.Program.Main and Game.Program.Run.
/// </summary>
internal static class GeneratedRefusal
{
    /// <summary>A <see cref="ReloadRefusalReason.GeneratedMemberDoesNotMap"/> refusal for the
    /// generated member <paramref name="generated"/>.</summary>
    public static ReloadRefusal For(string generated, string why)
    {
        string owner = UserMethod(generated) ?? generated;
        string detail = owner == generated ? "" : $" ({generated})";
        return new ReloadRefusal(ReloadRefusalReason.GeneratedMemberDoesNotMap, owner,
            $"{ReloadRefusalReason.GeneratedMemberDoesNotMap}: {owner}{detail} — {why}; the loaded assembly has no " +
            "lambda, closure or state machine of that name and shape: restart to take it");
    }

    /// <summary>For a generated edit from the comparison.</summary>
    public static ReloadRefusal For(MemberEdit edit) =>
        For(edit.Member, edit.Kind switch
        {
            EditKind.TypeAdded or EditKind.MethodAdded or EditKind.FieldAdded =>
                $"{edit.Kind} (a new lambda, closure, hoisted local or state machine)",
            EditKind.TypeRemoved or EditKind.MethodRemoved or EditKind.FieldRemoved =>
                $"{edit.Kind} (a lambda, closure, hoisted local or state machine is gone)",
            _ => edit.Detail is null ? edit.Kind.ToString() : $"{edit.Kind}: {edit.Detail}",
        });

    /// <summary>"Ns.Type.Method" for a generated member whose name holds "&lt;Method&gt;", or null.</summary>
    public static string? UserMethod(string generated)
    {
        // Only the name, not the parameters ("Run(System.Func<int, int>)" has a '<' too).
        int parameters = generated.IndexOf('(', StringComparison.Ordinal);
        if (parameters >= 0)
            generated = generated[..parameters];
        int first = generated.IndexOf('<', StringComparison.Ordinal);
        for (int i = first; i >= 0; i = generated.IndexOf('<', i + 1))
        {
            int close = generated.IndexOf('>', i + 1);
            if (close > i + 1)
            {
                // The user type is what comes before the first generated segment ("Game.Program+<>c").
                string type = generated[..first].TrimEnd('.', '+');
                string name = generated[(i + 1)..close];
                return type.Length == 0 ? name : type + "." + name;
            }
        }
        return null;
    }
}
