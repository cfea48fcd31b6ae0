; Depots, STRIPS with typing: the domain of the 3rd International Planning Competition (IPC 2002,
; D. Long and M. Fox; "The 3rd International Planning Competition: Results and Analysis", JAIR 20,
; 2003), as its `depots-strips-automatic` track defined it. Written for genplan from that published
; definition (same types, predicates and action schemas; lower-case names, our layout): no copy
; under a licence that allows one was found. Checked action by action against the copies in
; potassco/pddl-instances ipc-2002/domains/depots-strips-automatic/domain.pddl (commit
; cf19edf7c53d1540ddbb396c642595e0926ee552, no licence file) and AI-Planning/pddl-generators
; depots/domain.pddl (commit a0de95f1ddd67a1c5ba67d3a5107f855722f09b0, no licence file; the
; generators PlanGPT used). The IPC files name the domain `Depot`; here `depots`.
(define (domain depots)
  (:requirements :strips :typing)
  (:types place locatable - object
          depot distributor - place
          truck hoist surface - locatable
          pallet crate - surface)
  (:predicates (at ?x - locatable ?y - place)
               (on ?x - crate ?y - surface)
               (in ?x - crate ?y - truck)
               (lifting ?x - hoist ?y - crate)
               (available ?x - hoist)
               (clear ?x - surface))

  (:action drive
    :parameters (?x - truck ?y - place ?z - place)
    :precondition (at ?x ?y)
    :effect (and (not (at ?x ?y)) (at ?x ?z)))

  (:action lift
    :parameters (?x - hoist ?y - crate ?z - surface ?p - place)
    :precondition (and (at ?x ?p) (available ?x) (at ?y ?p) (on ?y ?z) (clear ?y))
    :effect (and (not (at ?y ?p)) (lifting ?x ?y) (not (clear ?y)) (not (available ?x))
                 (clear ?z) (not (on ?y ?z))))

  (:action drop
    :parameters (?x - hoist ?y - crate ?z - surface ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (clear ?z) (lifting ?x ?y))
    :effect (and (available ?x) (not (lifting ?x ?y)) (at ?y ?p) (not (clear ?z)) (clear ?y)
                 (on ?y ?z)))

  (:action load
    :parameters (?x - hoist ?y - crate ?z - truck ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (lifting ?x ?y))
    :effect (and (not (lifting ?x ?y)) (in ?y ?z) (available ?x)))

  (:action unload
    :parameters (?x - hoist ?y - crate ?z - truck ?p - place)
    :precondition (and (at ?x ?p) (at ?z ?p) (available ?x) (in ?y ?z))
    :effect (and (not (in ?y ?z)) (not (available ?x)) (lifting ?x ?y))))
