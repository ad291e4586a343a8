/*
 * kernel/isr.S: one entry stub per IDT vector (all 256 have a handler). Each stub makes the
 * stack look the same (a zero error code is pushed where the CPU pushes none, SDM 3A 6.13),
 * pushes its vector number, and joins isr_common, which saves the general registers as a
 * struct trapframe (kernel/trap.h) and calls trap_dispatch(frame).
 */
    .text
    .code64
    .altmacro

.macro isr_stub v
    .align 16
isr_stub_\v:
    /* Vectors 8, 10-14, 17, 21, 29, 30 come with a CPU error code (SDM 3A table 6-1);
     * for the rest push a zero so every frame has the same shape. */
    .if !((\v == 8) || ((\v >= 10) && (\v <= 14)) || (\v == 17) || (\v == 21) || (\v == 29) || (\v == 30))
    pushq $0
    .endif
    pushq $\v
    jmp isr_common
.endm

.set vec, 0
.rept 256
    isr_stub %vec
    .set vec, vec + 1
.endr

isr_common:
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    cld
    movq %rsp, %rdi
    call trap_dispatch
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
    addq $16, %rsp              /* vector and error code */
    iretq

.macro stub_addr v
    .quad isr_stub_\v
.endm

    .section .rodata
    .global isr_stub_table
    .align 8
isr_stub_table:
.set vec, 0
.rept 256
    stub_addr %vec
    .set vec, vec + 1
.endr
