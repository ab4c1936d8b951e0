/* vmboot_guest.S: the smallest guest tests/live/vmboot.test boots, built by
 * the test with as and ld (as --32, ld -m elf_i386 --oformat binary).
 *
 * A Linux boot-protocol image (Documentation/arch/x86/boot.rst), so QEMU's
 * -kernel loads it as it loads Linux: through its linuxboot_dma option ROM,
 * which copies the setup code, the kernel and the -initrd over fw_cfg DMA,
 * then jumps to the setup code in real mode. The setup code prints on the
 * serial port (COM1, 0x3f8) one line with the initrd size the ROM put in
 * the header (ramdisk_size), then Linux's init line, then powers the
 * machine off through the ACPI PM1a control port QEMU's PIIX4 has at 0x604
 * (SLP_EN with S5's type). The "kernel" after it is 64 KiB of padding. */
	.code16
	.section .text
	.globl _start
_start:
	.org 0x1f1
setup_sects:	.byte 1
root_flags:	.word 0
syssize:	.long 0
ram_size:	.word 0
vid_mode:	.word 0xffff
root_dev:	.word 0
boot_flag:	.word 0xaa55
	/* 0x200: where the setup code is entered: a jump over the header */
	jmp	setup
header:	.ascii "HdrS"
version:	.word 0x0206
realmode_swtch:	.long 0
start_sys_seg:	.word 0
kernel_version:	.word 0
type_of_loader:	.byte 0
loadflags:	.byte 1 /* LOADED_HIGH: the kernel goes to 1 MiB */
setup_move_size: .word 0
code32_start:	.long 0x100000
ramdisk_image:	.long 0
ramdisk_size:	.long 0
bootsect_kludge: .long 0
heap_end_ptr:	.word 0
ext_loader_ver:	.byte 0
ext_loader_type: .byte 0
cmd_line_ptr:	.long 0
initrd_addr_max: .long 0x7fffffff
setup:
	/* ds: the image's first byte (the setup code runs at cs = ds + 0x20) */
	mov	%cs, %ax
	sub	$0x20, %ax
	mov	%ax, %ds
	mov	$msg, %si
	call	puts
	mov	ramdisk_size, %eax
	call	putdec
	mov	$msg2, %si
	call	puts
	mov	$0x604, %dx
	mov	$0x2000, %ax
	out	%ax, %dx
1:	hlt
	jmp	1b
puts:	lodsb
	test	%al, %al
	jz	2f
	mov	$0x3f8, %dx
	out	%al, %dx
	jmp	puts
2:	ret
putdec:	/* %eax in decimal */
	mov	$10, %ecx
	xor	%bx, %bx
3:	xor	%edx, %edx
	div	%ecx
	push	%dx
	inc	%bx
	test	%eax, %eax
	jnz	3b
4:	pop	%ax
	add	$'0', %al
	mov	$0x3f8, %dx
	out	%al, %dx
	dec	%bx
	jnz	4b
	ret
msg:	.asciz "ltap-guest: kernel running, initrd "
msg2:	.asciz " bytes\nRun /init as init process\n"
	.org 0x400
payload:
	.fill 65536, 1, 0x90
