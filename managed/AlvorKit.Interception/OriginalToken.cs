namespace AlvorKit.Interception;

/// <summary>
/// An operand of the original body that a <see cref="GenerationPlan.FromOriginal"/> plan
/// re-emits exactly as the original has it: a metadata token of the target's own module (a
/// calli's StandAloneSig, or any other token an instruction of the original carries). No
/// relocation is made for it; the token must be valid in the target's module.
/// </summary>
/// <param name="Token">The metadata token (table in the high byte).</param>
public readonly record struct OriginalToken(int Token)
{
    /// <inheritdoc/>
    public override string ToString() => $"token 0x{Token:X8}";
}
